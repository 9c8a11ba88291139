#include "model/collectives.h"

#include <algorithm>
#include <cmath>

#include "model/coefficients.h"

namespace tessera::core {

using namespace knobs;

namespace {

// Of the ranks in a group spanning `dims` of a grid numbered in rank order, how many
// share one NVLink domain of perNode devices: each dimension's extent that still fits
// in the domain beside the dimensions numbered inside it.
template <class Size>
std::int64_t ranksPerNode(const Strategy& s, std::int64_t perNode, Size size, std::initializer_list<RankDim> dims) {
    std::int64_t block = 1, members = 1;
    for (RankDim d : s.rankOrder) {
        const std::int64_t extent = std::max<std::int64_t>(1, size(d));
        const std::int64_t room = block <= perNode ? perNode / block : 0;
        if (std::find(dims.begin(), dims.end(), d) != dims.end() && room > 1) members *= std::min(room, extent);
        block *= extent;
    }
    return members;
}

}  // namespace

GroupLinks groupLinks(const Strategy& s, const DeviceInfo& device) {
    const std::int64_t perNode = device.perNode;
    // Ranks are numbered dimension by dimension in rank order, innermost first, once for
    // the dense layers' grid and once for the expert layers' (MoE parallel folding:
    // expertgrid.h). A group stays in a node when every dimension it spans, and every
    // dimension inside those, fits in one node together.
    const ExpertGrid experts = expertGridOf(s);
    auto dense = [&](RankDim d) -> std::int64_t {
        switch (d) {
        case RankDim::Tp: return s.tp;
        case RankDim::Cp: return s.cp;
        case RankDim::Ep: return 1;
        case RankDim::Dp: return s.dp;
        case RankDim::Pp: return s.pp;
        }
        return 1;
    };
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
    auto link = [&](auto size, std::initializer_list<RankDim> dims) {
        std::int64_t block = 1, outermost = 0;
        bool any = false;
        for (std::size_t i = 0; i < s.rankOrder.size(); ++i) {
            block *= size(s.rankOrder[i]);
            if (std::find(dims.begin(), dims.end(), s.rankOrder[i]) != dims.end() && size(s.rankOrder[i]) > 1)
                outermost = block, any = true;
        }
        if (!any || outermost <= perNode) return Link::Intra;
        return outermost > device.leafDevices && device.oversubscription > 1 ? Link::Spine : Link::Inter;
    };
    GroupLinks g;
    g.tp = link(dense, {RankDim::Tp});
    g.cp = link(dense, {RankDim::Cp});
    g.dp = link(dense, {RankDim::Cp, RankDim::Dp});  // gradients reduce over dp·cp
    g.pp = link(dense, {RankDim::Pp});
    g.etp = link(expert, {RankDim::Tp});
    g.ep = link(expert, {RankDim::Ep});
    g.edp = link(expert, {RankDim::Dp});  // expert replicas
    g.tpPerNode = ranksPerNode(s, perNode, dense, {RankDim::Tp});
    g.dpPerNode = ranksPerNode(s, perNode, dense, {RankDim::Cp, RankDim::Dp});
    g.etpPerNode = ranksPerNode(s, perNode, expert, {RankDim::Tp});
    g.edpPerNode = ranksPerNode(s, perNode, expert, {RankDim::Dp});
    g.epPerNode = ranksPerNode(s, perNode, expert, {RankDim::Ep});
    return g;
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
