#include "model/expertcomm.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tessera::core {

namespace {

// Drawing `draw` of `total` without replacement, the chance that none comes from a given
// `part` of them: C(total - part, draw) / C(total, draw).
double missesPart(std::int64_t total, std::int64_t part, std::int64_t draw) {
    double p = 1;
    for (std::int64_t i = 0; i < draw && p > 0; ++i) p *= std::max(0.0, double(total - part - i) / double(total - i));
    return p;
}

// C(n, r) as a double (small arguments: groups per node, groups chosen).
double choose(std::int64_t n, std::int64_t r) {
    if (r < 0 || r > n) return 0;
    double c = 1;
    for (std::int64_t i = 0; i < r; ++i) c = c * double(n - i) / double(i + 1);
    return c;
}

// Balanced routing drawn as the router draws it: topk_group groups uniform among n_group,
// then top-k distinct experts uniform among the chosen groups' experts (without groups:
// among all). Experts lie over the nodes in order, experts/nodes a node, so a node holds
// whole groups (groups a multiple of nodes) or a group spans nodes (nodes a multiple of
// groups). The expected count is the sum over nodes of the chance a copy lands there, so
// it is exact for that draw; any other layout claims no group bound.
double nodesPerToken(const ExpertRoute& r) {
    const std::int64_t n = expertNodes(r);
    if (n <= 1) return 1;
    const std::int64_t k = std::max<std::int64_t>(1, r.topK);
    const std::int64_t experts = std::max<std::int64_t>(r.experts, n);
    const bool grouped = r.groups > 1 && r.groupTopk > 0 && r.groupTopk < r.groups && experts % r.groups == 0;
    if (grouped && r.groups % n == 0) {
        const std::int64_t perNode = r.groups / n, perGroup = experts / r.groups, pool = r.groupTopk * perGroup;
        double reached = 0;  // one node: j of its groups chosen (hypergeometric), then a copy among them
        for (std::int64_t j = 1; j <= std::min(perNode, r.groupTopk); ++j) {
            const double pj = choose(perNode, j) * choose(r.groups - perNode, r.groupTopk - j) / choose(r.groups, r.groupTopk);
            reached += pj * (1 - missesPart(pool, j * perGroup, k));
        }
        return double(n) * reached;
    }
    if (grouped && n % r.groups == 0) {
        const std::int64_t covered = r.groupTopk * (n / r.groups), pool = r.groupTopk * (experts / r.groups);
        return double(covered) * (1 - missesPart(pool, pool / covered, k));
    }
    return double(n) * (1 - missesPart(experts, experts / n, k));
}

}  // namespace

std::int64_t expertNodes(const ExpertRoute& r) {
    const std::int64_t local = std::clamp<std::int64_t>(r.epPerNode, 1, std::max<std::int64_t>(1, r.ep));
    return (r.ep + local - 1) / local;
}

double expectedNodesPerToken(const ExpertRoute& r) {
    // A function of six counts that a search asks again for every MoE layer it prices:
    // the last answer is kept per thread.
    const std::array<std::int64_t, 6> key{r.ep, r.epPerNode, r.experts, r.topK, r.groups, r.groupTopk};
    thread_local std::array<std::int64_t, 6> lastKey{};
    thread_local double last = -1;
    if (last >= 0 && key == lastKey) return last;
    lastKey = key;
    return last = nodesPerToken(r);
}

ExpertTraffic expertAllToAll(const ExpertRoute& r, double copyBytes, const DeviceInfo& d) {
    ExpertTraffic t;
    if (r.ep <= 1 || copyBytes <= 0) return t;
    const double n = double(r.ep);
    const std::int64_t local = std::clamp<std::int64_t>(r.epPerNode, 1, r.ep);
    const std::int64_t nodes = expertNodes(r);
    const double L = double(local);
    if (!r.twoStep || nodes <= 1) {
        t.intraBytes = copyBytes * (L - 1) / n;
        t.interBytes = copyBytes * (n - L) / n;
    } else {
        // One network copy of the token per remote node reached; every copy not on the
        // GPU it lands on moves once more over NVLink.
        const double tokenBytes = copyBytes / double(std::max<std::int64_t>(1, r.topK));
        t.interBytes = tokenBytes * expectedNodesPerToken(r) * double(nodes - 1) / double(nodes);
        t.intraBytes = copyBytes * (L - 1) / L;
    }
    const double intra = local > 1 ? linkAlpha(Link::Intra) * (L - 1) + t.intraBytes / linkBandwidth(Link::Intra, d) : 0;
    const double inter = nodes > 1 ? linkAlpha(r.network) * double(r.twoStep ? nodes - 1 : r.ep - local) +
                                         t.interBytes / linkBandwidth(r.network, d)
                                   : 0;
    t.seconds = std::max(intra, inter);
    return t;
}

}  // namespace tessera::core
