// The search and resolve() are one truth. The search prices a candidate straight
// into a CostInput and refuses it by integer rules (search/validity.h); a person's
// scenario goes through resolve() and costInput(). Nothing in the types holds the
// two together, so this does: for every candidate of its spaces (dense with
// interleaving, MoE with EP and ETP in either spelling, recompute and sharding, ...), built as the search
// decodes them,
//   - the search refuses it as invalid exactly when resolve() refuses the scenario
//     that states it (search/strategy.h: scenarioFor), and a candidate the search
//     prunes (outside a listed dp or micro-batch count, a duplicate) is one resolve()
//     accepts;
//   - where both price it, every stage holds the same bytes, term by term, and the
//     step takes the same time to 1e-9.
#include <QtTest>

#include "io/scenarioio.h"
#include "model/estimate.h"
#include "search/search.h"
#include "search/strategy.h"
#include "search/validity.h"

using namespace tessera::core;

namespace {

struct Tally {
    std::uint64_t candidates = 0, invalid = 0, pruned = 0, priced = 0;
    QStringList disagreements;
};

QString labelOf(const Candidate& c) { return QString::fromStdString(c.label()); }

void compare(const Scenario& stated, const SearchSetup& setup, const Candidate& c, Tally& t) {
    Estimate searched;
    evaluate(candidateInput(setup, c), &searched);
    const Estimate resolved = estimate(resolve(scenarioFor(stated, c)));
    auto disagree = [&](const QString& what) {
        if (t.disagreements.size() < 12) t.disagreements << labelOf(c) + ": " + what;
    };
    if (searched.stages.size() != resolved.stages.size()) return disagree("stage counts differ");
    for (std::size_t s = 0; s < searched.stages.size(); ++s) {
        const StageMemory &a = searched.stages[s].memory, &b = resolved.stages[s].memory;
        const std::pair<Bytes, Bytes> terms[] = {{a.parameters, b.parameters}, {a.gradients, b.gradients},
                                                 {a.optimizerStates, b.optimizerStates}, {a.mainParameters, b.mainParameters},
                                                 {a.activations, b.activations}, {a.buffers, b.buffers}, {a.working, b.working}};
        for (const auto& [x, y] : terms)
            if (x != y) return disagree(QString("stage %1 holds %2 bytes in the search, %3 resolved").arg(s).arg(x).arg(y));
    }
    const double step = std::abs(searched.stepSeconds - resolved.stepSeconds) / std::max(resolved.stepSeconds, 1e-300);
    if (!(step <= 1e-9)) disagree(QString("step %1 s in the search, %2 s resolved").arg(searched.stepSeconds).arg(resolved.stepSeconds));
    ++t.priced;
}

Tally walk(const std::string& yaml) {
    const Scenario stated = parseScenario(yaml, "space.yaml", Format::Yaml, "");
    const SearchSetup setup = searchSetup(stated);
    const std::vector<std::size_t> radix = setup.space.radix();
    const Validity validity(setup);
    Tally t;
    std::size_t digits[kAxes];
    for (std::uint64_t index = 0; index < setup.space.size(); ++index) {
        std::uint64_t rest = index;
        for (std::size_t a = kAxes; a-- > 0;) digits[a] = rest % radix[a], rest /= radix[a];
        Candidate c;
        c.index = index;
        const Refusal why = validity.check(digits, c);
        ++t.candidates;
        // A valid candidate (pruned or not) is priced first, as the search prices it: a
        // planned one then states its plan (pp_partition, recompute ranges) in its exec.
        CostInput in = setup.input;
        const bool planned = (why == Refusal::None || isPruning(why)) && priceCandidate(setup, validity, c, in).has_value();
        // The candidate under the search's constraint: its global batch stated, the
        // micro-batches left to resolve() (a candidate refused before the search derived
        // them has none of its own).
        Scenario asStated = scenarioFor(stated, c);
        asStated.exec.global_batch_size = setup.space.globalBatch;
        asStated.exec.micro_batch_num.reset();
        std::string refusedBy;
        try {
            resolve(asStated);
        } catch (const SpecError& e) {
            refusedBy = e.diagnostics().front().text();
        }
        const bool invalid = why != Refusal::None && !isPruning(why);
        if (invalid != !refusedBy.empty()) {
            if (t.disagreements.size() < 12)
                t.disagreements << labelOf(c) + ": the search says '" +
                                       QString::fromStdString(why == Refusal::None ? "valid" : refusalText(why)) +
                                       "', resolve() says '" + QString::fromStdString(refusedBy.empty() ? "valid" : refusedBy) + "'";
            continue;
        }
        if (invalid) ++t.invalid;
        else if (why != Refusal::None) ++t.pruned;
        else if (planned) compare(stated, setup, c, t);
    }
    return t;
}

}  // namespace

class TestSearchAgrees : public QObject {
    Q_OBJECT
private slots:
    void everyCandidate_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<int>("least");  // candidates the space must hold
        // Llama-3 70B on 64 H100: interleaving, context parallelism, TP overlap (which
        // needs sequence parallelism), a listed dp, every schedule (zb-h2's post-validated:
        // its step is the longest stage's span). 67,200 candidates.
        QTest::newRow("dense, interleaved") << QString(
            "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\n"
            "exec: {seq_length: 8192, tp_comm_overlap: true, optimizer_post_validation: true}\n"
            "search:\n  space: {dp: [1, 2, 4, 8], tp: auto, pp: auto, vpp: auto, cp: [1, 2], micro_batch_size: [1, 2, 4],\n"
            "          sequence_parallel: auto, optimizer_parallel: auto, pp_schedule: auto, recompute: [none, selective]}\n"
            "  constraints: {global_batch_size: 256}\n") << 18000;
        // Mixtral 8x7B on 32 H100: experts over EP, expert TP, a stated expert shard
        // the search carries, and the zero-bubble and dual schedules. 36,864 candidates.
        QTest::newRow("MoE, EP and ETP") << QString(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096, expert_shard: 2}\n"
            "search:\n  space: {tp: auto, pp: auto, cp: [1, 2], ep: auto, etp: [1, 2, 4], micro_batch_size: [1, 2],\n"
            "          sequence_parallel: auto, optimizer_parallel: auto, recompute: [none, full], pp_schedule: [1f1b, gpipe, zb-h1, dualpipe]}\n"
            "  constraints: {global_batch_size: 128}\n") << 18000;
        // The expert layers' own TP degree in Megatron's spelling (resolve/expertgrid.h):
        // expert_tp apart from tp, 1 (experts whole) up to 32, each candidate keeping those
        // whose ep · expert_tp divides its tp·cp·dp (context parallelism folds into the expert
        // grid), the expert gradients reduced over the expert dp. 4,608 candidates.
        QTest::newRow("MoE, expert_tp apart from tp") << QString(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096}\n"
            "search:\n  space: {tp: auto, pp: [1, 2, 4], cp: [1, 2], ep: auto, expert_tp: auto, micro_batch_size: [1],\n"
            "          sequence_parallel: auto, optimizer_parallel: auto, recompute: [none, full]}\n"
            "  constraints: {global_batch_size: 128}\n") << 4000;
        // Both spellings stated: the seed's etp 0 reads as each candidate's tp, so only the
        // candidates at tp 2 agree with expert_tp 2; the others are refused by both.
        QTest::newRow("MoE, etp stated beside expert_tp") << QString(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
            "exec: {seq_length: 4096, etp: 0, expert_tp: 2}\n"
            "search:\n  space: {tp: auto, pp: [1, 2], ep: auto, micro_batch_size: [1, 2], sequence_parallel: auto}\n"
            "  constraints: {global_batch_size: 64}\n") << 100;
        // Mixtral 8x7B on 16 H100 with the expert all-to-all overlapped (Megatron's combined
        // 1F1B: pp 1 or interleaved, ep > 1; priced by simulating the pairs) and the
        // parameter gather not: the schedules and degrees it refuses, the ones it pairs.
        // DeepEP's two-step dispatch is carried to every candidate (ep 8 beside tp 2 spans
        // two nodes), so the routed all-to-all is priced alike on both sides.
        QTest::newRow("MoE, overlapped all-to-all") << QString(
            "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 16}\n"
            "exec: {seq_length: 4096, overlap_moe_expert_parallel_comm: true, overlap_param_gather: false, moe_enable_deepep: true}\n"
            "search:\n  space: {tp: auto, pp: auto, vpp: [1, 2], ep: auto, micro_batch_size: [1, 2],\n"
            "          optimizer_parallel: auto, recompute: [none, full], pp_schedule: [1f1b, interleaved, dualpipe]}\n"
            "  constraints: {global_batch_size: 64}\n") << 300;
        // Llama-3 8B on 16 H100 as a sequence pipeline of 8 parts (Seq1F1B, and
        // Seq1F1B-I where 8 divides pp): the schedules it refuses beside seq_split, and
        // parts the ring cannot split.
        QTest::newRow("seqpipe") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
            "exec: {seq_length: 4000, seq_split: 8}\n"
            "search:\n  space: {tp: auto, pp: auto, cp: [1, 2, 4, 8], micro_batch_size: [1, 2], recompute: [none, full],\n"
            "          pp_schedule: [1f1b, seqpipe, interleaved, seqsmartvpp], vpp: [1, 2]}\n"
            "  constraints: {global_batch_size: 64}\n") << 300;
        // Llama-3 8B on 16 H100: every recompute mode and ZeRO stage, listed optimizer
        // shards over a sharding domain that spans cp, resharded FSDP parameters with
        // deferred accumulation, a clip-free run. 23,040 candidates.
        QTest::newRow("recompute and sharding") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
            "exec: {seq_length: 4096, shard_spans_cp: true, reshard_params: true, deferred_grad_accumulation: true,\n"
            "       grad_clip: false, overlapped_grad_reduce: false, cp: 2}\n"
            "search:\n  space: {tp: auto, pp: auto, micro_batch_size: [1, 2, 4, 8], sequence_parallel: auto,\n"
            "          optimizer_parallel: auto, grad_shard: auto, grad_shard_as_params: auto, optimizer_shard: [2, 4],\n"
            "          recompute: auto, pp_schedule: auto}\n"
            "  constraints: {global_batch_size: 64}\n") << 18000;
        // optimizer_shard: auto, one shard per NVLink domain where that is narrower than
        // the group, on grids whose context-parallel ranks the shards leave out (the cp
        // ranks replicas) or span: 4 nodes of 8 H100, tp 1 to 8, cp 1 or 2, pp 1 or 2.
        for (const char* spans : {"false", "true"})
            QTest::newRow(qPrintable(QString("optimizer_shard auto, shard_spans_cp %1").arg(spans))) << QString(
                "model: llama3-8b\ncluster: {device: h100-sxm, devices: 32}\n"
                "exec: {seq_length: 4096, shard_spans_cp: " + QString(spans) + "}\n"
                "search:\n  space: {tp: auto, pp: [1, 2], cp: [1, 2], optimizer_parallel: auto, grad_shard: auto,\n"
                "          grad_shard_as_params: auto, optimizer_shard: auto, recompute: [full]}\n"
                "  constraints: {global_batch_size: 64}\n") << 200;
        // One micro-batch per step without gradient accumulation (the seed's B_g = 0),
        // activations sliced over TP: every mbs and TP layout of 64 sequences on 8 GPUs.
        QTest::newRow("no accumulation") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
            "exec: {seq_length: 4096, grad_accumulation: false, recompute_slice_activation: true}\n"
            "search:\n  space: {tp: auto, pp: auto, micro_batch_size: [1, 2, 4, 8, 16, 32, 64], sequence_parallel: auto,\n"
            "          optimizer_parallel: auto, recompute: auto}\n"
            "  constraints: {global_batch_size: 64}\n") << 500;
        // HyperParallel's FSDP degree (a seed search file's `fsdp` list): 1 shards
        // nothing, n shards parameters, gradients and optimizer states over n ranks,
        // within a domain that spans cp.
        QTest::newRow("dp_shard") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 8192, shard_spans_cp: true}\n"
            "search:\n  space: {tp: auto, pp: [1, 2, 4], cp: [1, 2], dp_shard: [1, 2, 4, 8, 16], micro_batch_size: [1, 2],\n"
            "          sequence_parallel: auto, recompute: [selective, full]}\n"
            "  constraints: {global_batch_size: 128}\n") << 900;
        // What a seed file states beside its lists: a placement for one pp (the others
        // refused), sequence parallelism on wherever tp > 1, selective recompute by
        // the seed's rule.
        QTest::newRow("stated placement, sp where tp > 1") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096, sequence_parallel: true, offset: [1, 0, 0, -1], selective_rule: hyperparallel}\n"
            "search:\n  space: {tp: auto, pp: [1, 2, 4, 8], micro_batch_size: [1, 2], optimizer_parallel: auto,\n"
            "          recompute: [none, selective, full]}\n"
            "  constraints: {global_batch_size: 128}\n") << 150;
        // Activation offload of three layers a stage: refused where a stage's first chunk
        // holds fewer (even splits over many chunks), priced with the host link where it
        // fits, and on a stated placement whose lightest first chunk holds exactly three.
        QTest::newRow("activation offload") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096, activation_offload: 3}\n"
            "search:\n  space: {tp: auto, pp: [1, 2, 4, 8], vpp: [1, 2, 4], pp_schedule: [1f1b, interleaved],\n"
            "          micro_batch_size: [1, 2], recompute: [none, full]}\n"
            "  constraints: {global_batch_size: 128}\n") << 40;
        QTest::newRow("activation offload, stated placement") << QString(
            "model: llama3-8b\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096, activation_offload: 3, offset: [[3, 0, 0, -1], [0, 0, 0, -2]]}\n"
            "search:\n  space: {tp: auto, pp: [4, 8], vpp: [1, 2], pp_schedule: [1f1b, interleaved], micro_batch_size: [1, 2],\n"
            "          recompute: [none, full]}\n"
            "  constraints: {global_batch_size: 128}\n") << 0;
        // A global batch so large that a simulated schedule's events pass what is
        // simulated at one micro-batch size and not at the other: refused by both
        // alike, while the closed-form 1f1b prices it either way.
        QTest::newRow("too long to simulate") << QString(
            "model: llama3-8b\ncluster: {device: a100-80gb, devices: 32}\n"
            "exec: {seq_length: 4096}\n"
            "search:\n  space: {tp: [1, 2], pp: [4, 8], vpp: [1, 2], micro_batch_size: [1, 256], pp_schedule: [1f1b, zbv, v-half]}\n"
            "  constraints: {global_batch_size: 2097152}\n") << 48;
        // Planned inside every candidate: the layers per stage (pp_partition: auto, which
        // lets 30 layers go on 4 or 8 stages) and each layer's option (per_layer), at a
        // limit that makes the plan choose; each candidate's exec states its plan.
        QTest::newRow("planned: partition and per-layer recompute") << QString(
            "model: {preset: llama3-8b, num_hidden_layers: 30}\ncluster: {device: h100-sxm, devices: 32}\n"
            "exec: {seq_length: 4096}\n"
            "search:\n  space: {tp: [1, 2, 4], pp: [1, 2, 4, 8], micro_batch_size: [1, 2, 4], optimizer_parallel: auto,\n"
            "          grad_shard: auto, sequence_parallel: auto, recompute: [full, per_layer], pp_schedule: [1f1b, gpipe],\n"
            "          pp_partition: auto}\n"
            "  constraints: {global_batch_size: 128, memory_limit_gb: 30}\n") << 150;
    }
    void everyCandidate() {
        QFETCH(QString, yaml);
        QFETCH(int, least);
        const Tally t = walk(yaml.toStdString());
        qInfo("%llu candidates: %llu refused by both, %llu pruned (valid), %llu priced by both",
              (unsigned long long)t.candidates, (unsigned long long)t.invalid, (unsigned long long)t.pruned,
              (unsigned long long)t.priced);
        QVERIFY2(t.disagreements.isEmpty(), qPrintable(t.disagreements.join('\n')));
        QVERIFY(t.candidates >= std::uint64_t(least));
        QVERIFY(t.priced >= 10 && t.invalid >= std::uint64_t(least) / 20);  // both sides of the rule are exercised
    }
};

QTEST_APPLESS_MAIN(TestSearchAgrees)
#include "tst_searchagrees.moc"
