// The cluster's topology as the collectives read it (cluster.nvlink_domain,
// leaf_devices, oversubscription): a group inside an NVLink domain rides NVLink, one
// spanning more than a leaf group crosses the spine at the NIC rate over its
// oversubscription, and one inside a leaf group does not notice the spine at all.
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/collectives.h"
#include "model/estimate.h"
#include "model/stagebody.h"
#include "report/estimatereport.h"
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

// Mixtral 8x7B under FSDP on 64 H100: 8 experts over the 8 ranks of a node, each expert
// replicated on one rank of each of the 8 nodes; every transfer exposed, weights kept
// gathered after the forward (one gather and one reduce-scatter per layer).
const char* kMoeFsdp = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 64}\n"
                       "exec: {tp: 1, pp: 1, ep: 8, seq_length: 4096, global_batch_size: 64, optimizer_parallel: true,"
                       " grad_shard: true, grad_shard_as_params: true, reshard_params: false,"
                       " overlapped_grad_reduce: false, overlap_param_gather: false}\n";

ResolvedScenario resolved(const char* yaml, const QStringList& sets) {
    Value doc = parseDocument(yaml, "topology.yaml", Format::Yaml);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return resolve(scenarioFromValue(doc, "topology.yaml", ""));
}
Estimate priced(const char* yaml, const QStringList& sets) { return estimate(resolved(yaml, sets)); }

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
        // The bandwidth term doubles; the latency term (two ring passes of 56 NVLink and 7
        // network steps, at NCCL's plateau of 1.4) does not.
        const double latency = 1.4 * 2 * (56 * 5e-6 + 7 * 12e-6);
        QVERIFY2(std::abs((spineReduce - latency) / (reduce - latency) - 2) < 1e-9,
                 qPrintable(QString("%1 s against %2 s").arg(spineReduce).arg(reduce)));
        QVERIFY(spine.stepSeconds > flat.stepSeconds);
    }

    // NICs per device scale the network's bandwidth term and nothing else: half a NIC
    // each doubles the data-parallel reduction's bandwidth term, NVLink groups do not notice.
    void nicsPerDeviceScaleTheNetwork() {
        const Estimate one = priced(kDataParallel, {});
        const Estimate half = priced(kDataParallel, {"cluster.nics_per_device=0.5"});
        const Estimate two = priced(kDataParallel, {"cluster.nics_per_device=2"});
        const double latency = 1.4 * 2 * (56 * 5e-6 + 7 * 12e-6);
        const double beta = one.stages[0].time.dp - latency;
        QVERIFY(qFuzzyCompare(half.stages[0].time.dp - latency, 2 * beta));
        QVERIFY(qFuzzyCompare(two.stages[0].time.dp - latency, beta / 2));
        QVERIFY(half.stepSeconds > one.stepSeconds && two.stepSeconds < one.stepSeconds);
        const Estimate wide = priced(kWideTensor, {"exec.tp=8"});
        const Estimate wideHalf = priced(kWideTensor, {"exec.tp=8", "cluster.nics_per_device=0.5"});
        QCOMPARE(wideHalf.stages[0].time.tp, wide.stages[0].time.tp);  // TP 8 rides NVLink
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

    // NCCL's ring crosses the network once per node it enters: of the 63 steps of a pass
    // over 64 ranks in 8 nodes, 7 wait on the NIC and 56 on NVLink.
    void ringCrossesTheNetworkOncePerNode() {
        DeviceInfo d;
        d.intraBytesPerSecond = 450e9, d.interBytesPerSecond = 50e9;
        const double tiny = 64;  // bytes: the latency term alone, to a part in 10^6
        const double spread = allGather(tiny, 64, Link::Inter, d, 1).seconds;
        const double packed = allGather(tiny, 64, Link::Inter, d, 8).seconds;
        QVERIFY(std::abs(spread - 63 * 12e-6) < 1e-8);
        QVERIFY(std::abs(packed - (56 * 5e-6 + 7 * 12e-6)) < 1e-8);
        // Inside one node every step is an NVLink step, as before.
        QVERIFY(std::abs(allGather(tiny, 8, Link::Intra, d, 8).seconds - 7 * 5e-6) < 1e-8);
    }

    // At thousands of ranks NCCL's tree beats the ring on a modest all-reduce: its latency
    // grows with log2 of the nodes, the ring's with the ranks.
    void treeAllReduceAtScale() {
        DeviceInfo d;
        d.intraBytesPerSecond = 450e9, d.interBytesPerSecond = 50e9;
        const double bytes = 1 << 20, bus = 50e9 * 0.9;
        const double ringPass = (4096 - 512) * 5e-6 + 511 * 12e-6;
        const double ring = 1.4 * 2 * ringPass + 2 * bytes * 4095 / 4096 / bus;
        // log2(2^20 / 64) = 14: NCCL's size correction there is 0.5.
        const double tree = 2 * 28e-6 * (7 + 9) + 2 * bytes / (0.92 * 0.5 * bus);
        QVERIFY(tree < ring / 10);
        QVERIFY(qFuzzyCompare(allReduce(bytes, 4096, Link::Inter, d, 8).seconds, tree));
        // Reduce-scatter has no tree: its ring pays every step.
        QVERIFY(qFuzzyCompare(allGather(bytes, 4096, Link::Inter, d, 8).seconds, ringPass + bytes * 4095 / 4096 / bus));
    }

    // Megatron-LM reduces gradients bucket by bucket when it overlaps the reduction (each
    // bucket its own collective, paying its latency), and as one bucket when it does not.
    void everyBucketPaysItsLatency() {
        const Estimate one = priced(kDataParallel, {});
        const Estimate buckets = priced(kDataParallel, {"exec.overlapped_grad_reduce=true"});
        // 64 ranks over 8 nodes (8 a node): each bucket's ring all-reduce pays its two passes'
        // 56 NVLink and 7 network steps at NCCL's plateau (its tree is slower at this size).
        const double perBucket = 1.4 * 2 * (56 * 5e-6 + 7 * 12e-6);
        const double count = std::ceil(double(one.perDeviceMaxParameters) / 64e6);  // max(40 M, 1 M x 64) elements a bucket
        QVERIFY(count > 100);
        QVERIFY2(qFuzzyCompare(buckets.stages[0].time.dp - one.stages[0].time.dp, (count - 1) * perBucket),
                 qPrintable(QString("%1 s more over %2 buckets").arg(buckets.stages[0].time.dp - one.stages[0].time.dp).arg(count)));
    }
    // A data-parallel ring with several ranks in a node is priced at one NIC per rank, and
    // the estimate says so where its figures are read: NCCL could use those ranks' NICs.
    void sharedNodeRingIsSaidToUseOneNic() {
        // The count the text and the JSON give for the dense group ("Data-parallel ...") or
        // the experts' replicas, or -1 when they disagree.
        auto said = [](const char* yaml, const QStringList& sets, bool experts = false) {
            const ResolvedScenario r = resolved(yaml, sets);
            const Estimate e = estimate(r);
            const std::string text = estimateText(r, e, nullptr);
            const char* line = experts ? "The routed experts' data-parallel collectives are priced at one NIC per rank"
                                       : "Data-parallel collectives are priced at one NIC per rank";
            const bool inText = text.find(line) != std::string::npos;
            const auto json = nlohmann::json::parse(estimateJson(r, e, nullptr))[experts ? "expert_dp_ranks_per_node_priced_on_one_nic"
                                                                                         : "dp_ranks_per_node_priced_on_one_nic"];
            if (inText == json.is_null()) return std::int64_t(-1);
            return json.is_null() ? std::int64_t(0) : json.get<std::int64_t>();
        };
        QCOMPARE(said(kDataParallel, {}), std::int64_t(8));                        // 64 ranks, 8 a node
        QCOMPARE(said(kDataParallel, {"exec.tp=4", "exec.dp=16"}), std::int64_t(2));  // 2 of a node's 8
        QCOMPARE(said(kDataParallel, {"exec.tp=8", "exec.dp=8"}), std::int64_t(0));   // one a node: its own NIC
        QCOMPARE(said(kDataParallel, {"cluster.devices=8", "exec.dp=8", "exec.global_batch_size=8"}),
                 std::int64_t(0));  // inside one node: NVLink
        QCOMPARE(said(kDataParallel, {}, true), std::int64_t(0));  // a dense model has no expert replicas
        // Optimizer shards of 8 (HSDP): each shard group inside a node, its replicas one a node.
        QCOMPARE(said(kDataParallel, {"exec.optimizer_parallel=true", "exec.optimizer_shard=8"}), std::int64_t(0));
        // Shards of 16: each shard group spans two nodes, 8 ranks in each.
        QCOMPARE(said(kDataParallel, {"exec.optimizer_parallel=true", "exec.optimizer_shard=16"}), std::int64_t(8));
        // Mixtral at ep 8: a node holds one replica of each expert, its dense ring 8 ranks.
        QCOMPARE(said(kMoeFsdp, {}, true), std::int64_t(0));
        QCOMPARE(said(kMoeFsdp, {}), std::int64_t(8));
        // At ep 4 a node holds two replicas of each expert: their ring leaves it on one NIC.
        QCOMPARE(said(kMoeFsdp, {"exec.ep=4"}, true), std::int64_t(2));
        QCOMPARE(said(kMoeFsdp, {"exec.ep=4", "exec.frozen=true"}, true), std::int64_t(0));  // nothing to reduce
    }

    // Optimizer shards narrower than the data-parallel group (torchtitan's HSDP, Megatron-LM's
    // distributed-optimizer instances): gradients reduce-scatter inside a shard group and
    // all-reduce their shard across its replicas; parameters gather inside a shard group.
    void shardGroupsReduceThenAllReduceAcrossReplicas() {
        const QStringList zero1{"exec.optimizer_parallel=true"};
        const ResolvedScenario r = resolved(kDataParallel, zero1);
        const CostInput in = costInput(r);
        const DeviceInfo& d = in.device;
        const Estimate whole = estimate(r);
        const double P = whole.perDeviceMaxParameters, G = P * in.run.gradBytes, W = P * in.run.paramBytes;
        // One shard over all 64 ranks: one reduce-scatter and one gather over 8 nodes, 8 a node.
        const double wholeExpected = allGather(G, 64, Link::Inter, d, 8).seconds + allGather(W, 64, Link::Inter, d, 8).seconds;
        QVERIFY2(qFuzzyCompare(whole.stages[0].time.dp, wholeExpected),
                 qPrintable(QString("%1 s against %2 s").arg(whole.stages[0].time.dp).arg(wholeExpected)));
        // Shards of 8: a reduce-scatter and a gather on NVLink, then an all-reduce of an
        // eighth across 8 replicas, one a node.
        const Estimate eight = priced(kDataParallel, zero1 + QStringList{"exec.optimizer_shard=8"});
        const double eightExpected = allGather(G, 8, Link::Intra, d, 8).seconds + allReduce(G / 8, 8, Link::Inter, d, 1).seconds +
                                     allGather(W, 8, Link::Intra, d, 8).seconds;
        QVERIFY2(qFuzzyCompare(eight.stages[0].time.dp, eightExpected),
                 qPrintable(QString("%1 s against %2 s").arg(eight.stages[0].time.dp).arg(eightExpected)));
        QVERIFY(eight.stages[0].time.dp < whole.stages[0].time.dp / 3);  // 0.29 s against 1.07 s
        // Stated as the whole group, a shard is priced as unstated.
        QCOMPARE(priced(kDataParallel, zero1 + QStringList{"exec.optimizer_shard=64"}).stages[0].time.dp, whole.stages[0].time.dp);

        // The links themselves, on a tp 2 grid of 8-device nodes: shards of 4 stay in a node,
        // shards of 8 span two with 4 in each, and their replicas leave it one a node.
        Strategy s;
        s.tp = 2, s.dp = 32, s.optimizerSharded = true, s.optimizerShard = 4;
        GroupLinks g = tessera::core::groupLinks(s, 8);
        QCOMPARE(g.dpShard.shardLink, Link::Intra);
        QCOMPARE(g.dpShard.replicas, std::int64_t(8));
        QCOMPARE(g.dpShard.replicaLink, Link::Inter);
        QCOMPARE(g.dpShard.replicaPerNode, std::int64_t(1));
        s.optimizerShard = 8;
        g = tessera::core::groupLinks(s, 8);
        QCOMPARE(g.dpShard.shardLink, Link::Inter);
        QCOMPARE(g.dpShard.shardPerNode, std::int64_t(4));
        // A shard over dp alone (shard_spans_cp false) leaves the context-parallel ranks as
        // replicas: tp 2 x cp 2 fit in a node, so their all-reduce rides NVLink.
        s.cp = 2, s.dp = 16, s.optimizerShard = 16;
        g = tessera::core::groupLinks(s, 8);
        QCOMPARE(g.dpShard.replicas, std::int64_t(2));
        QCOMPARE(g.dpShard.replicaLink, Link::Intra);
        QCOMPARE(g.dpShard.shardLink, Link::Inter);
        s.shardSpansCp = true, s.optimizerShard = 32;
        QCOMPARE(tessera::core::groupLinks(s, 8).dpShard.replicas, std::int64_t(1));
    }

    // FSDP gathers and reduce-scatters the routed experts' weights too, over each expert's
    // replicas (torchtitan shards experts over the data-parallel ranks left by ep).
    void fsdpMovesTheExpertsOverTheirReplicas() {
        const CostInput in = costInput(resolved(kMoeFsdp, {}));
        detail::StageContext ctx(in);
        const detail::StageBody b = detail::stageBody(ctx, 0);
        QVERIFY(b.expertParams > b.params);  // most of Mixtral's weights are experts'
        const DeviceInfo& d = in.device;
        const double pieces = double(b.layers), Bg = in.run.gradBytes, Bp = in.run.paramBytes;
        // Per layer: the dense weights over 64 ranks (8 a node), the experts' over their 8
        // replicas (one a node); a gather before the forward, a reduce-scatter after the backward.
        auto both = [&](double bytes, double expertBytes) {
            return pieces * (allGather(bytes / pieces, 64, Link::Inter, d, 8).seconds +
                             allGather(expertBytes / pieces, 8, Link::Inter, d, 1).seconds);
        };
        const double expected = both(b.params * Bp, b.expertParams * Bp) + both(b.params * Bg, b.expertParams * Bg);
        QVERIFY2(qFuzzyCompare(b.time.exposed.dp, expected), qPrintable(QString("%1 s against %2 s").arg(b.time.exposed.dp).arg(expected)));
    }
};

QTEST_GUILESS_MAIN(TestTopology)
#include "tst_topology.moc"
