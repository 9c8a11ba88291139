#pragma once
// The collectives a step issues, priced on the links their groups span: which link
// each parallel dimension's group rides (NVLink, the NICs under one leaf group, or an
// oversubscribed spine), how many of its ranks share an NVLink domain, and the
// alpha-beta time of a ring (or, for a multi-node all-reduce, NCCL's tree when that
// is predicted faster) over them.
#include "model/costinput.h"

namespace tessera::core {

// Intra: NVLink; Inter: the NICs under one leaf group; Spine: the NICs through an
// oversubscribed spine (a group spanning more than cluster.leaf_devices).
enum class Link : std::uint8_t { Intra, Inter, Spine };

struct CollectiveCost {
    double seconds = 0;  // alpha-beta, on the group's slowest link
    double bytes = 0;    // sent per device
};

// The link each parallel dimension's group spans, given the rank order (default TP,
// CP, EP, DP, PP innermost first, as Megatron-LM and reference/hyperparallel.md §5.7's
// level_assign fill ranks) and the devices per node. The dense layers' groups (tp, cp,
// dp, pp) are numbered on the grid tp x cp x dp x pp, the expert layers' (etp, ep, edp)
// on the expert grid etp x ep x expert dp x pp in the same order, cp folded away
// (resolve/expertgrid.h; Megatron-LM's expert RankGenerator). With each, the ranks of
// one group that share an NVLink domain (the group's size when it stays in one).
// A data-parallel group whose optimizer shards span `ranks` of it (exec.optimizer_shard,
// expert_shard): gradients reduce-scatter inside a shard group (its innermost ranks, as
// torchtitan's HSDP mesh and Megatron-LM's distributed-optimizer instances number them)
// and all-reduce across its `replicas`; parameters gather inside a shard group. One
// shard over the whole group (replicas 1) is the group itself: its ranks, link and
// ranks per node.
struct ShardGroups {
    std::int64_t ranks = 1, replicas = 1;
    Link shardLink = Link::Intra, replicaLink = Link::Intra;
    std::int64_t shardPerNode = 1, replicaPerNode = 1;
};

struct GroupLinks {
    Link tp = Link::Intra, cp = Link::Intra, ep = Link::Intra, dp = Link::Intra, edp = Link::Intra, pp = Link::Intra;
    Link etp = Link::Intra;      // the expert layers' tensor-parallel group
    std::int64_t epPerNode = 1;  // ranks of one expert-parallel group that share a node
    std::int64_t tpPerNode = 1, dpPerNode = 1, edpPerNode = 1, etpPerNode = 1;
    ShardGroups dpShard, edpShard;  // the dp·cp group and the expert replicas, as the optimizer shards them
};
GroupLinks groupLinks(const Strategy& s, const DeviceInfo& device);
// Of the ranks a sharded optimizer's shard may span (dp·cp, or dp alone with cp > 1
// unless shard_spans_cp), how many share one NVLink domain: the widest shard whose shard
// groups stay on NVLink, their replicas crossing the network (HSDP with a shard per node).
std::int64_t shardRanksPerNode(const Strategy& s, const DeviceInfo& device);
// The same in a cluster of `perNode` devices per NVLink domain and no spine in any path.
inline GroupLinks groupLinks(const Strategy& s, std::int64_t perNode) {
    DeviceInfo d;
    d.perNode = perNode;
    return groupLinks(s, d);
}

// A link's achieved bandwidth (bytes/s per device, coefficients.h efficiencies) and
// its per-step latency.
double linkBandwidth(Link link, const DeviceInfo& d);
double linkAlpha(Link link);

// Collectives of `bytes` (the whole tensor) over n ranks, `perNode` of them in each
// NVLink domain when the group crosses the network (1: every rank in its own node).
// All-gather and reduce-scatter are NCCL rings; an all-reduce is a ring (reduce-scatter
// then all-gather) or, across nodes, NCCL's tree when its model predicts that faster
// (coefficients.h, NCCL's tuning model); all-to-all sends (n-1)/n of its buffer.
CollectiveCost allGather(double bytes, std::int64_t n, Link link, const DeviceInfo& d, std::int64_t perNode = 1);
CollectiveCost allReduce(double bytes, std::int64_t n, Link link, const DeviceInfo& d, std::int64_t perNode = 1);
CollectiveCost allToAll(double bytes, std::int64_t n, Link link, const DeviceInfo& d);
CollectiveCost sendReceive(double bytes, Link link, const DeviceInfo& d);
// `count` equal collectives that together move `bytes` (gradient buckets, FSDP's
// per-layer transfers): the bandwidth term once, the latency term `count` times.
template <class One>
CollectiveCost inBuckets(double bytes, double count, One&& one) {
    if (count <= 1) return one(bytes);
    const CollectiveCost each = one(bytes / count);
    return {each.seconds * count, each.bytes * count};
}

}  // namespace tessera::core
