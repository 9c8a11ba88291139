// The expert layers' own TP degree priced (exec.expert_tp, resolve/expertgrid.h): what
// moves from expert_tp = tp (the seed's etp rule, Megatron-LM's default) to expert_tp = 1
// (each expert whole on its ep rank, Megatron-LM --expert-tensor-parallel-size 1), and the
// Megatron-Bridge Qwen3-235B-A22B recipe that states it, resolved and priced.
#include <QtTest>

#include <cmath>

#include "costhelpers.h"
#include "model/estimate.h"
#include "model/layercost.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

const std::string kData = TESSERA_TEST_DATA;

// Mixtral 8x7B (32 MoE layers, 8 experts, top-2) on 16 H100, one stage, sequence parallel,
// unsharded optimizer: every expert weight, gradient, moment and master copy on the device.
std::string mixtral(qint64 tp, qint64 ep, qint64 expertTp) {
    return "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
           "exec: {tp: " + std::to_string(tp) + ", ep: " + std::to_string(ep) + ", expert_tp: " + std::to_string(expertTp) +
           ", sequence_parallel: true, seq_length: 4096, global_batch_size: 64}\n";
}

struct Priced {
    CostInput input;
    LayerCost layer;  // one MoE layer, no recompute
    Estimate estimate;
};

Priced price(const std::string& yaml) {
    Priced p;
    p.input = inputYaml(yaml);
    const GroupLinks links = groupLinks(p.input.strategy, p.input.device);
    p.layer = layerCost(p.input, p.input.model.kinds.front(), RecomputeClass{}, links);
    evaluate(p.input, &p.estimate);
    return p;
}

}  // namespace

class TestExpertTp : public QObject {
    Q_OBJECT
private slots:
    void expertsWholeAgainstExpertsAtTp_data() {
        QTest::addColumn<qint64>("tp");
        QTest::addColumn<qint64>("ep");
        QTest::newRow("tp 2, ep 8") << qint64(2) << qint64(8);
        QTest::newRow("tp 4, ep 4") << qint64(4) << qint64(4);
        QTest::newRow("tp 8, ep 2") << qint64(8) << qint64(2);
    }
    void expertsWholeAgainstExpertsAtTp() {
        QFETCH(qint64, tp);
        QFETCH(qint64, ep);
        const Priced atTp = price(mixtral(tp, ep, tp)), whole = price(mixtral(tp, ep, 1));
        QVERIFY(atTp.input.model.kinds.front().moe);
        QCOMPARE(atTp.input.strategy.etp, std::int64_t(tp));
        QCOMPARE(whole.input.strategy.etp, std::int64_t{1});

        // Expert weights on a device: exactly tp times as many, each term of the memory
        // moving by (tp - 1) times the expert bytes at tp, in its own width; nothing else.
        const double experts = atTp.layer.expertParamsDevice;
        QCOMPARE(whole.layer.expertParamsDevice, double(tp) * experts);
        QCOMPARE(whole.layer.paramsDevice - whole.layer.expertParamsDevice, atTp.layer.paramsDevice - experts);
        const double layers = double(atTp.estimate.stages.front().layers);
        const StageMemory& a = atTp.estimate.stages.front().memory;
        const StageMemory& w = whole.estimate.stages.front().memory;
        const RunSettings& run = atTp.input.run;
        const double moved = double(tp - 1) * layers * experts;
        QCOMPARE(double(w.parameters - a.parameters), moved * run.paramBytes);
        QCOMPARE(double(w.gradients - a.gradients), moved * run.gradBytes);
        QCOMPARE(double(w.optimizerStates - a.optimizerStates), moved * double(run.optimizerStates) * run.stateBytes);
        QCOMPARE(double(w.mainParameters - a.mainParameters), moved * run.mainBytes);

        // The same expert work per rank (etp/tp of the tokens at 1/etp of the width), the
        // same model FLOPs.
        QCOMPARE(whole.layer.backwardWeight, atTp.layer.backwardWeight);
        QCOMPARE(whole.layer.modelFlopsForward, atTp.layer.modelFlopsForward);

        // TP collectives: the attention's pair over tp either way; the experts' gather and
        // reduce-scatter over their etp ranks of all the routed copies, none at expert_tp 1.
        const CostInput& in = atTp.input;
        const GroupLinks links = groupLinks(in.strategy, in.device);
        const double T = double(in.run.seq) * double(in.strategy.mbs) / double(in.strategy.cp);
        const double activation = in.run.computeBytes * T * double(in.model.h);
        const double attention = allReduce(activation, tp, links.tp, in.device).seconds;
        const double expertsTp = allReduce(activation * double(in.model.topK), tp, links.etp, in.device).seconds;
        QCOMPARE(whole.layer.tpSeconds, 2 * attention);
        QCOMPARE(atTp.layer.tpSeconds, 2 * (attention + expertsTp));
        // The ep group of whole experts is ep ranks side by side (no expert TP inside it), so
        // it spans no more nodes than the one etp ranks apart.
        QVERIFY(whole.layer.epSeconds <= atTp.layer.epSeconds);
        // The trade: less communication in each micro-batch, tp times the expert gradients
        // to reduce once a step over the expert dp, tp·cp·dp / ep ranks instead of / (ep·tp).
        const StageTime& ta = atTp.estimate.stages.front().time;
        const StageTime& tw = whole.estimate.stages.front().time;
        QVERIFY(tw.communication < ta.communication);
        QVERIFY(tw.dp > ta.dp);
    }

    // NVIDIA-NeMo/Megatron-Bridge's Qwen3-235B-A22B pre-training recipe (the file's header
    // cites it): TP 4, PP 16, CP 2, EP 8, expert TP 1 on 256 H100. It resolves as stated,
    // its expert grid folds (8 ep x 1 expert tp x 2 expert dp over 2 dp x 4 tp x 2 cp),
    // it prices and fits; in the seed's spelling it is refused, by name.
    void megatronBridgeQwen3_235b() {
        const std::string path = kData + "/valid/qwen3-235b-a22b-h100x256-megatron-bridge.yaml";
        const ResolvedScenario r = resolve(loadScenario(path));
        const ExecSpec& e = r.scenario.exec;
        QCOMPARE(*e.tp, std::int64_t{4});
        QCOMPARE(*e.pp, std::int64_t{16});
        QCOMPARE(*e.cp, std::int64_t{2});
        QCOMPARE(*e.dp, std::int64_t{2});
        QCOMPARE(*e.ep, std::int64_t{8});
        QCOMPARE(*e.expert_tp, std::int64_t{1});
        QVERIFY(!e.etp);  // the seed's etp cannot say 1 beside tp 4
        const std::optional<ExpertGrid> grid = expertGrid(*e.tp, *e.cp, *e.dp, *e.ep, *e.expert_tp);
        QVERIFY(grid);
        QCOMPARE(grid->dp, std::int64_t{2});
        QCOMPARE(r.partition.layers.front().front(), std::int64_t{5});

        const Estimate est = estimate(r);
        QCOMPARE(est.totalParameters, std::int64_t{235093634560});
        QVERIFY(est.fits);
        QVERIFY(est.stepSeconds > 0 && std::isfinite(est.stepSeconds));
        QVERIFY(est.tokensPerSecond > 0);
        // Each device holds its 16 of the 128 experts of each of its layers whole: 16 · 3 · 4096 · 1536.
        const CostInput in = costInput(r);
        QCOMPARE(in.strategy.etp, std::int64_t{1});
        const LayerCost layer = layerCost(in, in.model.kinds.front(), RecomputeClass{}, groupLinks(in.strategy, in.device));
        QCOMPARE(layer.expertParamsDevice, 16.0 * 3 * 4096 * 1536);

        Scenario seed = loadScenario(path);
        seed.exec.expert_tp.reset();
        seed.exec.etp = 0;
        try {
            resolve(seed);
            QFAIL("the seed's etp 0 beside tp 4 resolved");
        } catch (const SpecError& err) {
            QVERIFY2(QString(err.what()).contains("exec.ep: ep · expert tensor parallelism = 8·4 = 32 ranks must divide "
                                                  "dp·tp·cp = 16"), err.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestExpertTp)
#include "tst_experttp.moc"
