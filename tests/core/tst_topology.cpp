// The cluster's topology as the collectives read it (cluster.nvlink_domain,
// leaf_devices, oversubscription): a group inside an NVLink domain rides NVLink, one
// spanning more than a leaf group crosses the spine at the NIC rate over its
// oversubscription, and one inside a leaf group does not notice the spine at all.
#include <QtTest>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

// Llama-3 8B, pure data parallelism over 64 H100 (8 DGX nodes), the gradient reduction
// exposed (no overlap) so its time is the step's difference.
const char* kDataParallel = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 64}\n"
                            "exec: {tp: 1, pp: 1, seq_length: 2048, global_batch_size: 64, overlapped_grad_reduce: false}\n";
// GPT-3 175B at tp 16: across two DGX nodes, unless an NVLink Switch System joins them.
const char* kWideTensor = "model: gpt3-175b\ncluster: {device: h100-sxm, devices: 64}\n"
                          "exec: {tp: 16, pp: 4, sequence_parallel: true, seq_length: 2048, global_batch_size: 64,"
                          " recompute: [{first: 0, option: full}]}\n";

Estimate priced(const char* yaml, const QStringList& sets) {
    Value doc = parseDocument(yaml, "topology.yaml", Format::Yaml);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return estimate(resolve(scenarioFromValue(doc, "topology.yaml", "")));
}

}  // namespace

class TestTopology : public QObject {
    Q_OBJECT
private slots:
    void spineDividesTheNicRate() {
        const Estimate flat = priced(kDataParallel, {});
        const Estimate inLeaf = priced(kDataParallel, {"cluster.leaf_devices=64", "cluster.oversubscription=2"});
        const Estimate spine = priced(kDataParallel, {"cluster.leaf_devices=16", "cluster.oversubscription=2"});
        const double reduce = flat.stages[0].time.dp, spineReduce = spine.stages[0].time.dp;
        QVERIFY(reduce > 0.05);
        QCOMPARE(inLeaf.stages[0].time.dp, reduce);  // every rank under one leaf: no spine in the path
        // The bandwidth term doubles; the latency term (2(n-1) steps of 12 us) does not.
        const double latency = 2 * 63 * 12e-6;
        QVERIFY2(std::abs((spineReduce - latency) / (reduce - latency) - 2) < 0.02,
                 qPrintable(QString("%1 s against %2 s").arg(spineReduce).arg(reduce)));
        QVERIFY(spine.stepSeconds > flat.stepSeconds);
    }

    void nvlinkDomainCarriesWideTensorParallelism() {
        const Estimate twoNodes = priced(kWideTensor, {});
        const Estimate oneDomain = priced(kWideTensor, {"cluster.nvlink_domain=16"});
        // TP 16 over NVLink rather than 50 GB/s NICs: its collectives take a fraction.
        QVERIFY(oneDomain.stages[0].time.tp < twoNodes.stages[0].time.tp / 5);
        QVERIFY(oneDomain.stepSeconds < twoNodes.stepSeconds);
        // Within one node nothing changes.
        const Estimate eight = priced(kWideTensor, {"exec.tp=8"});
        const Estimate eightDomain = priced(kWideTensor, {"exec.tp=8", "cluster.nvlink_domain=16"});
        QCOMPARE(eightDomain.stages[0].time.tp, eight.stages[0].time.tp);
    }
};

QTEST_GUILESS_MAIN(TestTopology)
#include "tst_topology.moc"
