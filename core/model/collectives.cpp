#include "model/collectives.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <numeric>
#include <tuple>
#include <utility>

#include "model/coefficients.h"

namespace tessera::core {

using namespace knobs;

namespace {

// One axis of a rank grid, innermost first: its extent and whether the group spans it.
struct Axis {
    std::int64_t size = 1;
    bool member = false;
};
// A grid of at most two axes per parallel dimension, on the stack: every priced
// strategy builds several (the search prices hundreds of thousands a second).
struct Grid {
    std::array<Axis, 2 * std::tuple_size_v<decltype(Strategy::rankOrder)>> axes{};
    std::size_t count = 0;
    void push_back(Axis a) { axes[count++] = a; }
    const Axis* begin() const { return axes.data(); }
    const Axis* end() const { return axes.data() + count; }
};

// Of a group's ranks, how many share one NVLink domain of perNode devices: each spanned
// axis's extent that still fits in the domain beside the axes numbered inside it.
std::int64_t ranksPerNode(const Grid& grid, std::int64_t perNode) {
    std::int64_t block = 1, members = 1;
    for (const Axis& a : grid) {
        const std::int64_t extent = std::max<std::int64_t>(1, a.size);
        const std::int64_t room = block <= perNode ? perNode / block : 0;
        if (a.member && room > 1) members *= std::min(room, extent);
        block *= extent;
    }
    return members;
}

// The link a group rides: it stays in a node when every axis it spans, and every axis
// inside those, fit in one node together; past a leaf group of an oversubscribed
// fabric it crosses the spine.
Link gridLink(const Grid& grid, const DeviceInfo& device) {
    std::int64_t block = 1, outermost = 0;
    for (const Axis& a : grid) {
        block *= std::max<std::int64_t>(1, a.size);
        if (a.member && a.size > 1) outermost = block;
    }
    if (outermost <= device.perNode) return Link::Intra;
    return outermost > device.leafDevices && device.oversubscription > 1 ? Link::Spine : Link::Inter;
}

// A grid whose axes in `dims` the group spans.
template <class Size>
Grid gridOf(const Strategy& s, Size size, std::initializer_list<RankDim> dims) {
    Grid g;
    for (RankDim d : s.rankOrder) g.push_back({size(d), std::find(dims.begin(), dims.end(), d) != dims.end()});
    return g;
}

// A data-parallel group split into shards of `shard` ranks (the innermost ones of the
// axes in `domain`) and the replicas of each shard across the rest: each axis the group
// spans becomes its shard part (gcd with what is left to place) inside its replica part.
// Returns the shard's grid and the replicas' grid.
template <class Size>
std::pair<Grid, Grid> splitGrids(const Strategy& s, Size size, std::initializer_list<RankDim> group,
                                 std::initializer_list<RankDim> domain, std::int64_t shard) {
    Grid inner, outer;
    std::int64_t left = std::max<std::int64_t>(1, shard);
    for (RankDim d : s.rankOrder) {
        const std::int64_t n = std::max<std::int64_t>(1, size(d));
        const bool spans = std::find(group.begin(), group.end(), d) != group.end();
        const bool shards = spans && std::find(domain.begin(), domain.end(), d) != domain.end();
        const std::int64_t part = shards ? std::gcd(n, left) : 1;
        left /= part;
        inner.push_back({part, shards}), inner.push_back({n / part, false});
        outer.push_back({part, false}), outer.push_back({n / part, spans});
    }
    return {inner, outer};
}

// The dense layers' grid: each dimension's extent (no expert axis there).
auto denseExtents(const Strategy& s) {
    return [&s](RankDim d) -> std::int64_t {
        switch (d) {
        case RankDim::Tp: return s.tp;
        case RankDim::Cp: return s.cp;
        case RankDim::Ep: return 1;
        case RankDim::Dp: return s.dp;
        case RankDim::Pp: return s.pp;
        }
        return 1;
    };
}

// Whether an optimizer shard may span the cp ranks as well as dp's: with shard_spans_cp,
// and for an unsharded optimizer, whose gradients reduce over dp·cp whole.
bool shardsOverCp(const Strategy& s) { return s.shardSpansCp || !s.optimizerSharded; }

}  // namespace

GroupLinks groupLinks(const Strategy& s, const DeviceInfo& device) {
    const std::int64_t perNode = device.perNode;
    // Ranks are numbered dimension by dimension in rank order, innermost first, once for
    // the dense layers' grid and once for the expert layers' (MoE parallel folding:
    // expertgrid.h).
    const ExpertGrid experts = expertGridOf(s);
    const auto dense = denseExtents(s);
    auto expert = [&](RankDim d) -> std::int64_t {
        switch (d) {
        case RankDim::Tp: return experts.tp;
        case RankDim::Cp: return 1;
        case RankDim::Ep: return experts.ep;
        case RankDim::Dp: return experts.dp;
        case RankDim::Pp: return s.pp;
        }
        return 1;
    };
    auto group = [&](Link& link, std::int64_t& members, const Grid& grid) {
        link = gridLink(grid, device);
        members = ranksPerNode(grid, perNode);
    };
    GroupLinks g;
    group(g.tp, g.tpPerNode, gridOf(s, dense, {RankDim::Tp}));
    g.cp = gridLink(gridOf(s, dense, {RankDim::Cp}), device);
    group(g.dp, g.dpPerNode, gridOf(s, dense, {RankDim::Cp, RankDim::Dp}));  // gradients reduce over dp·cp
    g.pp = gridLink(gridOf(s, dense, {RankDim::Pp}), device);
    group(g.etp, g.etpPerNode, gridOf(s, expert, {RankDim::Tp}));
    group(g.ep, g.epPerNode, gridOf(s, expert, {RankDim::Ep}));
    group(g.edp, g.edpPerNode, gridOf(s, expert, {RankDim::Dp}));  // expert replicas
    // The optimizer's shards (exec.optimizer_shard over dp·cp, or over dp alone unless
    // shard_spans_cp; exec.expert_shard over the expert replicas) and their replicas; a
    // shard over the whole group is the group (its grids are not built again: every
    // priced strategy comes here).
    auto sharded = [&](ShardGroups& out, std::int64_t members, std::int64_t ranks, Link whole, std::int64_t wholePerNode,
                       auto split) {
        out.ranks = std::max<std::int64_t>(1, ranks), out.replicas = std::max<std::int64_t>(1, members / out.ranks);
        if (out.replicas == 1) {
            out.ranks = members, out.shardLink = whole, out.shardPerNode = wholePerNode;
            return;
        }
        const auto [shard, replica] = split(out.ranks);
        group(out.shardLink, out.shardPerNode, shard);
        group(out.replicaLink, out.replicaPerNode, replica);
    };
    sharded(g.dpShard, s.dp * s.cp, s.optimizerSharded ? s.optimizerShard : s.dp * s.cp, g.dp, g.dpPerNode, [&](std::int64_t r) {
        return shardsOverCp(s) ? splitGrids(s, dense, {RankDim::Cp, RankDim::Dp}, {RankDim::Cp, RankDim::Dp}, r)
                               : splitGrids(s, dense, {RankDim::Cp, RankDim::Dp}, {RankDim::Dp}, r);
    });
    sharded(g.edpShard, experts.dp, s.optimizerSharded ? s.expertShard : experts.dp, g.edp, g.edpPerNode,
            [&](std::int64_t r) { return splitGrids(s, expert, {RankDim::Dp}, {RankDim::Dp}, r); });
    return g;
}

std::int64_t shardRanksPerNode(const Strategy& s, const DeviceInfo& device) {
    const auto dense = denseExtents(s);
    return ranksPerNode(shardsOverCp(s) ? gridOf(s, dense, {RankDim::Cp, RankDim::Dp}) : gridOf(s, dense, {RankDim::Dp}),
                        device.perNode);
}

double linkBandwidth(Link link, const DeviceInfo& d) {
    if (link == Link::Intra) return d.intraBytesPerSecond * d.intraLinkEfficiency;
    return d.interBytesPerSecond * d.interLinkEfficiency / (link == Link::Spine ? d.oversubscription : 1.0);
}
double linkAlpha(Link link) { return link == Link::Intra ? kAlphaIntraSeconds : kAlphaInterSeconds; }

namespace {

// The NVLink domains a group of n ranks spans, perNode of them in each (two at least
// once it crosses the network).
double domains(std::int64_t n, Link link, std::int64_t perNode) {
    if (link == Link::Intra) return 1;
    return std::max(2.0, std::ceil(double(n) / double(std::clamp<std::int64_t>(perNode, 1, n))));
}

// One pass of NCCL's ring (a reduce-scatter or an all-gather): n-1 steps, of which the
// N-1 from one domain to the next wait on the network and the rest on NVLink.
double ringPassLatency(std::int64_t n, Link link, std::int64_t perNode) {
    const double nodes = domains(n, link, perNode);
    if (nodes <= 1) return kAlphaIntraSeconds * double(n - 1);
    return kAlphaIntraSeconds * (double(n) - nodes) + kAlphaInterSeconds * (nodes - 1);
}

// NCCL's tree all-reduce across domains: its latency (up and down a chain inside each
// domain and a binary tree between them) and its share of the ring's bus bandwidth at
// this size (coefficients.h).
double treeLatency(std::int64_t n, Link link, std::int64_t perNode) {
    const double nodes = domains(n, link, perNode);
    const double inDomain = std::min<double>(double(std::max<std::int64_t>(perNode, 1)), double(n));
    return 2 * kTreeHopSeconds * ((inDomain - 1) + std::ceil(std::log2(nodes)));
}
double treeBandwidthShare(double bytes) {
    const int index = int(std::floor(std::log2(std::max(1.0, bytes / 64))));
    const int entries = int(std::size(kTreeSizeCorrection));
    return kTreeBusShare * (index < entries ? kTreeSizeCorrection[std::max(0, index)] : 1.0);
}

}  // namespace

CollectiveCost allGather(double bytes, std::int64_t n, Link link, const DeviceInfo& d, std::int64_t perNode) {
    if (n <= 1 || bytes <= 0) return {};
    const double sent = bytes * double(n - 1) / double(n);
    return {ringPassLatency(n, link, perNode) + sent / linkBandwidth(link, d), sent};
}

CollectiveCost allReduce(double bytes, std::int64_t n, Link link, const DeviceInfo& d, std::int64_t perNode) {
    if (n <= 1 || bytes <= 0) return {};
    const double sent = 2 * bytes * double(n - 1) / double(n);  // reduce-scatter, then all-gather
    const double beta = sent / linkBandwidth(link, d);
    if (link == Link::Intra) return {2 * ringPassLatency(n, link, perNode) + beta, sent};
    const double ring = kRingPlateau * 2 * ringPassLatency(n, link, perNode) + beta;
    // The tree's algorithm bandwidth is half its bus bandwidth: each rank sends the whole
    // tensor up and receives it down.
    const double tree = treeLatency(n, link, perNode) + 2 * bytes / (treeBandwidthShare(bytes) * linkBandwidth(link, d));
    return {std::min(ring, tree), sent};
}

CollectiveCost allToAll(double bytes, std::int64_t n, Link link, const DeviceInfo& d) {
    if (n <= 1 || bytes <= 0) return {};
    const double sent = bytes * double(n - 1) / double(n);  // each rank sends (n-1)/n of its buffer
    return {linkAlpha(link) * double(n - 1) + sent / linkBandwidth(link, d), sent};
}

CollectiveCost sendReceive(double bytes, Link link, const DeviceInfo& d) {
    if (bytes <= 0) return {};
    return {linkAlpha(link) + bytes / linkBandwidth(link, d), bytes};
}

}  // namespace tessera::core
