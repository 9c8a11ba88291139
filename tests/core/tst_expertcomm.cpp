// The expert all-to-all priced by where the tokens go (model/expertcomm.h): the flat
// dispatcher's split between NVLink and the NICs, the two-step (DeepEP) dispatch's one
// network copy per remote node, and the nodes a token reaches under group-limited
// routing, held to a Monte Carlo of the routing itself.
#include <QtTest>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "model/expertcomm.h"
#include "model/layercost.h"

using namespace tessera::core;

namespace {

// H800 figures as resources/presets/devices/h800.yaml carries them: 200 GB/s a direction
// over NVLink (400 GB/s bidirectional, H800 product brief), 50 GB/s a GPU over 400 Gb/s
// InfiniBand (DeepSeek-V3 report §3.1).
DeviceInfo h800() {
    DeviceInfo d;
    d.name = "H800";
    d.intraBytesPerSecond = 200e9;
    d.interBytesPerSecond = 50e9;
    d.perNode = 8;
    return d;
}

// Group-limited top-k routing under balanced load, drawn: `groups` groups of experts laid
// over the nodes in order (a node holds experts/nodes consecutive experts), topk_group
// groups chosen uniformly, then top-k distinct experts uniformly among the chosen groups'
// experts. Returns the mean number of distinct nodes a token's copies reach.
double monteCarloNodes(std::int64_t experts, std::int64_t nodes, std::int64_t groups, std::int64_t groupTopk,
                       std::int64_t k, int draws) {
    std::mt19937_64 rng(20261203);
    const std::int64_t perGroup = groups > 0 ? experts / groups : experts;
    const std::int64_t perNode = experts / nodes;
    std::vector<std::int64_t> groupIds(std::size_t(std::max<std::int64_t>(groups, 1)));
    std::iota(groupIds.begin(), groupIds.end(), 0);
    double sum = 0;
    for (int t = 0; t < draws; ++t) {
        std::vector<std::int64_t> pool;
        if (groups > 0) {
            std::shuffle(groupIds.begin(), groupIds.end(), rng);
            for (std::int64_t g = 0; g < groupTopk; ++g)
                for (std::int64_t e = 0; e < perGroup; ++e) pool.push_back(groupIds[std::size_t(g)] * perGroup + e);
        } else {
            pool.resize(std::size_t(experts));
            std::iota(pool.begin(), pool.end(), 0);
        }
        std::shuffle(pool.begin(), pool.end(), rng);
        std::set<std::int64_t> reached;
        for (std::int64_t c = 0; c < k; ++c) reached.insert(pool[std::size_t(c)] / perNode);
        sum += double(reached.size());
    }
    return sum / draws;
}

}  // namespace

class TestExpertComm : public QObject {
    Q_OBJECT
private slots:
    void flatIsTheOldAllToAllAtEitherEnd();
    void flatSplitsTheBytesExactly();
    void twoStepSendsOneCopyPerRemoteNode();
    void nodesPerToken_data();
    void nodesPerToken();
    void deepSeekV3();
    void epRanksPerNodeFollowTheRankOrder();
};

// An ep group inside one node is the old all-to-all over NVLink; one rank per node is the
// old all-to-all over the NICs: the routed price moves only what lies between.
void TestExpertComm::flatIsTheOldAllToAllAtEitherEnd() {
    const DeviceInfo d = h800();
    const double bytes = 7168.0 * 2 * 4096 * 8;  // 4096 tokens, top-8 copies, BF16
    for (bool twoStep : {false, true}) {
        const ExpertRoute inNode{8, 8, 256, 8, 0, 0, twoStep};
        QCOMPARE(expertAllToAll(inNode, bytes, d).seconds, allToAll(bytes, 8, Link::Intra, d).seconds);
        QCOMPARE(expertAllToAll(inNode, bytes, d).interBytes, 0.0);
    }
    const ExpertRoute spread{16, 1, 256, 8, 0, 0, false};
    QCOMPARE(expertAllToAll(spread, bytes, d).seconds, allToAll(bytes, 16, Link::Inter, d).seconds);
    QCOMPARE(expertAllToAll(spread, bytes, d).intraBytes, 0.0);
    // Between the ends it is cheaper than all of it over the NICs, dearer than all over NVLink.
    const ExpertRoute half{16, 8, 256, 8, 0, 0, false};
    QVERIFY(expertAllToAll(half, bytes, d).seconds < allToAll(bytes, 16, Link::Inter, d).seconds);
    QVERIFY(expertAllToAll(half, bytes, d).seconds > allToAll(bytes, 16, Link::Intra, d).seconds);
    QCOMPARE(expertAllToAll(ExpertRoute{1, 1, 8, 2, 0, 0, false}, bytes, d).seconds, 0.0);
}

// Flat: a copy's destination is uniform over the n ranks, so (L-1)/n stay in the node,
// (n-L)/n leave it, 1/n stays on the sender; the slower link sets the time.
void TestExpertComm::flatSplitsTheBytesExactly() {
    const DeviceInfo d = h800();
    const double bytes = 1e9;
    for (std::int64_t n : {16, 32, 64}) {
        for (std::int64_t L : {2, 4, 8}) {
            const ExpertTraffic t = expertAllToAll(ExpertRoute{n, L, 256, 8, 0, 0, false}, bytes, d);
            QCOMPARE(t.intraBytes, bytes * double(L - 1) / double(n));
            QCOMPARE(t.interBytes, bytes * double(n - L) / double(n));
            QCOMPARE(t.intraBytes + t.interBytes, bytes * double(n - 1) / double(n));
            const double intra = linkAlpha(Link::Intra) * double(L - 1) + t.intraBytes / linkBandwidth(Link::Intra, d);
            const double inter = linkAlpha(Link::Inter) * double(n - L) + t.interBytes / linkBandwidth(Link::Inter, d);
            QCOMPARE(t.seconds, std::max(intra, inter));
        }
    }
}

// Two-step: the network carries a token once per remote node it reaches, however many of
// its copies land there; NVLink then carries every copy not already on its GPU.
void TestExpertComm::twoStepSendsOneCopyPerRemoteNode() {
    const DeviceInfo d = h800();
    const double bytes = 8e9;  // k = 8 copies: 1e9 of distinct tokens
    const ExpertRoute r{64, 8, 256, 8, 0, 0, true};
    const ExpertTraffic t = expertAllToAll(r, bytes, d);
    QCOMPARE(expertNodes(r), std::int64_t(8));
    const double reached = expectedNodesPerToken(r);
    QCOMPARE(t.interBytes, 1e9 * reached * 7.0 / 8.0);
    QCOMPARE(t.intraBytes, bytes * 7.0 / 8.0);
    // Fewer network bytes than flat, which sends (n-L)/n of all copies.
    const ExpertTraffic flat = expertAllToAll(ExpertRoute{64, 8, 256, 8, 0, 0, false}, bytes, d);
    QVERIFY(t.interBytes < flat.interBytes);
    QCOMPARE(flat.interBytes, bytes * 56.0 / 64.0);
    // The group limit cuts it further (DeepSeek-V3: at most 4 nodes).
    const ExpertTraffic limited = expertAllToAll(ExpertRoute{64, 8, 256, 8, 8, 4, true}, bytes, d);
    QVERIFY(limited.interBytes < t.interBytes);
    QVERIFY(limited.seconds < t.seconds);
}

void TestExpertComm::nodesPerToken_data() {
    QTest::addColumn<qint64>("experts");
    QTest::addColumn<qint64>("nodes");
    QTest::addColumn<qint64>("groups");
    QTest::addColumn<qint64>("groupTopk");
    QTest::addColumn<qint64>("k");
    // Group counts and top-k of published routers: DeepSeek-V3 (config.json: 256 experts,
    // n_group 8, topk_group 4, top-8), DeepSeek-V2 (160, 8, 3, top-6), and ungrouped
    // top-k as Qwen3-MoE (128 experts, top-8) and Mixtral (8, top-2) route.
    QTest::newRow("DeepSeek-V3 8 nodes, 4 of 8 groups") << qint64(256) << qint64(8) << qint64(8) << qint64(4) << qint64(8);
    QTest::newRow("DeepSeek-V3 8 nodes, no group limit") << qint64(256) << qint64(8) << qint64(0) << qint64(0) << qint64(8);
    QTest::newRow("DeepSeek-V3 4 nodes, 4 of 8 groups") << qint64(256) << qint64(4) << qint64(8) << qint64(4) << qint64(8);
    QTest::newRow("DeepSeek-V3 16 nodes, 4 of 8 groups") << qint64(256) << qint64(16) << qint64(8) << qint64(4) << qint64(8);
    QTest::newRow("DeepSeek-V2 8 nodes, 3 of 8 groups") << qint64(160) << qint64(8) << qint64(8) << qint64(3) << qint64(6);
    QTest::newRow("Qwen3-MoE 16 nodes") << qint64(128) << qint64(16) << qint64(0) << qint64(0) << qint64(8);
    QTest::newRow("Mixtral 2 nodes") << qint64(8) << qint64(2) << qint64(0) << qint64(0) << qint64(2);
}

// The form (per node: how many of its groups are chosen, then the chance one of the k
// distinct experts lands among theirs) against the routing drawn 200,000 times. The form
// is exact for that draw, so what is left is the draw's own noise (a standard error of
// about 0.2 %): within 1 % on every row. A first form took k copies independent and the
// mean coverage, and missed Mixtral's top-2 of 8 by 4.4 %.
void TestExpertComm::nodesPerToken() {
    QFETCH(qint64, experts);
    QFETCH(qint64, nodes);
    QFETCH(qint64, groups);
    QFETCH(qint64, groupTopk);
    QFETCH(qint64, k);
    const ExpertRoute r{nodes * 8, 8, experts, k, groups, groupTopk, true};
    QCOMPARE(expertNodes(r), std::int64_t(nodes));
    const double form = expectedNodesPerToken(r);
    const double drawn = monteCarloNodes(experts, nodes, groups, groupTopk, k, 200000);
    qInfo("%s: form %.4f, drawn %.4f (%+.2f %%)", QTest::currentDataTag(), form, drawn, 100 * (form / drawn - 1));
    QVERIFY2(std::abs(form / drawn - 1) < 0.01, qPrintable(QString("form %1 drawn %2").arg(form).arg(drawn)));
    if (groups > 0 && groups % nodes == 0) QVERIFY(form <= double(groupTopk));  // at most M nodes a token
}

// DeepSeek-V3's own layout (report §3.2.2): ep 64 over 8 nodes, each token to at most 4
// nodes. Its IB traffic is a token's 7,168 BF16 values once per remote node reached
// (about 3.2 of them), against 7 of 8 copies for the flat dispatcher.
void TestExpertComm::deepSeekV3() {
    const ExpertRoute r{64, 8, 256, 8, 8, 4, true};
    QCOMPARE(expertNodes(r), std::int64_t(8));
    // A node's one group is chosen with chance 4/8; then the token reaches it unless all 8
    // of its experts come from the other 96 of the chosen 128.
    double missed = 1;
    for (int i = 0; i < 8; ++i) missed *= (96.0 - i) / (128.0 - i);
    QCOMPARE(expectedNodesPerToken(r), 8 * 0.5 * (1 - missed));
    const double tokenBytes = 7168.0 * 2;
    const ExpertTraffic t = expertAllToAll(r, tokenBytes * 8, h800());
    const double remote = t.interBytes / tokenBytes;
    qInfo("remote nodes a token crosses to: %.3f (flat: %.3f copies cross)", remote, 8 * 56.0 / 64.0);
    QVERIFY(remote > 3.0 && remote < 3.5);
}

// The ep group's ranks share a node as far as the dimensions numbered inside it allow:
// on the expert grid (MoE parallel folding), the expert TP ranks inside it, not the dense tp·cp.
void TestExpertComm::epRanksPerNodeFollowTheRankOrder() {
    Strategy s;
    s.dp = 64;
    s.ep = 64;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(8));
    s.tp = s.etp = 2;
    s.dp = 32;
    s.ep = 32;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(4));
    s.tp = s.etp = 8;
    s.dp = 8;
    s.ep = 8;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(1));
    QCOMPARE(groupLinks(s, 8).ep, Link::Inter);
    QCOMPARE(groupLinks(s, 8).etp, Link::Intra);
    // Experts whole beside tp 8: the ep group is the tp ranks of one node (Megatron-LM's
    // expert RankGenerator numbers expert TP, then EP), the expert replicas over nodes.
    s.etp = 1;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(8));
    QCOMPARE(groupLinks(s, 8).ep, Link::Intra);
    QCOMPARE(groupLinks(s, 8).edp, Link::Inter);
    s.tp = s.etp = 1;
    s.dp = 4;
    s.ep = 4;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(4));
    QCOMPARE(groupLinks(s, 8).ep, Link::Intra);
    // Context parallelism folds into the expert grid: cp 2 beside tp 2 (Qwen3-235B's
    // recipe, etp 1, ep 8) leaves the ep group on one node's eight ranks.
    s.tp = 4, s.cp = 2, s.dp = 2, s.ep = 8, s.etp = 1;
    QCOMPARE(groupLinks(s, 8).epPerNode, std::int64_t(8));
    QCOMPARE(groupLinks(s, 8).ep, Link::Intra);
    QCOMPARE(groupLinks(s, 8).cp, Link::Intra);
    QCOMPARE(groupLinks(s, 8).dp, Link::Inter);
}

QTEST_GUILESS_MAIN(TestExpertComm)
#include "tst_expertcomm.moc"
