#pragma once
// Expert dispatch and combine priced by where the tokens go. A routed expert layer
// sends each token's top-k copies to the GPUs holding those experts; with the ep
// group spread over nodes, the copies to GPUs of the sender's node ride NVLink and
// the rest the NICs, at the same time. Two ways to route them:
//   flat      every copy goes straight to its expert's GPU (Megatron-LM's alltoall
//             token dispatcher): a copy's destination is uniform over the ep group
//             under balanced routing, so (L-1)/n of them stay in the node and (n-L)/n
//             cross it;
//   two-step  DeepEP's internode kernels and DeepSeek-V3's own (report §3.2.2): a token
//             crosses the network once per remote node it routes to, to the GPU of the
//             same rail there, and NVLink carries it on to its experts. With
//             group-limited routing (n_group groups, topk_group chosen per token; a
//             group's experts on one node) a token reaches at most topk_group nodes,
//             which is what bounds DeepSeek-V3's IB traffic (at most 4 nodes of 8).
// Dispatch and combine move the same bytes (the combine returns each copy).
#include <cstdint>

#include "model/layercost.h"

namespace tessera::core {

struct ExpertRoute {
    std::int64_t ep = 1;          // ranks of the expert-parallel group
    std::int64_t epPerNode = 1;   // of them, ranks sharing one node (GroupLinks)
    std::int64_t experts = 1, topK = 1;
    std::int64_t groups = 0, groupTopk = 0;  // model.n_group / topk_group; 0: no group limit
    bool twoStep = false;         // exec.moe_enable_deepep
    Link network = Link::Inter;   // what its cross-node copies take (GroupLinks::ep: Spine past a leaf group)
};

// Nodes the ep group spans, and the expected number of distinct nodes one token's
// top-k copies reach, its own included (balanced routing: the chosen groups uniform,
// the top-k distinct experts uniform among theirs; exact for that draw).
std::int64_t expertNodes(const ExpertRoute& r);
double expectedNodesPerToken(const ExpertRoute& r);

struct ExpertTraffic {
    double intraBytes = 0, interBytes = 0;  // per rank, one way (dispatch or combine)
    double seconds = 0;                     // the slower link; NVLink and the NICs run at once
};

// One dispatch (or one combine) of `copyBytes`: the bytes of all routed copies a rank
// sends (tokens · top-k · capacity · hidden · element bytes).
ExpertTraffic expertAllToAll(const ExpertRoute& r, double copyBytes, const DeviceInfo& d);

}  // namespace tessera::core
