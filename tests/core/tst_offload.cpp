// Offload (exec.activation_offload, exec.optimizer_offload) against its own arithmetic:
// what leaves the device is what the offloaded layers keep in flight, two of them stay
// in transit, a copy is exposed by exactly what the compute beside it cannot hide, the
// optimizer's offloaded share costs its copies and its host step (one after another, or
// the longest of them overlapped), and every way to state it wrongly is refused by name.
#include <QtTest>

#include <tuple>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "plan/planexec.h"
#include "resolve/resolve.h"
#include "search/search.h"
#include "spec/diagnostics.h"

using namespace tessera::core;

namespace {

// Llama-3 8B on 16 H100: tp 2, pp 2 (16 layers a stage), one kind, one class.
const char* kBase = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                    "exec: {tp: 2, pp: 2, seq_length: 4096, global_batch_size: 64}\n";

Value document(const char* yaml, const QStringList& sets) {
    Value doc = parseDocument(yaml, "offload.yaml", Format::Yaml);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return doc;
}

Estimate priced(const QStringList& sets) {
    return estimate(resolve(scenarioFromValue(document(kBase, sets), "offload.yaml", "")));
}

// The refusal of a scenario, or "" when it resolves.
std::string refusal(const QStringList& sets, const char* yaml = kBase) {
    try {
        const Scenario s = scenarioFromValue(document(yaml, sets), "offload.yaml", "");
        (void)resolve(s);
        if (s.search) (void)searchSetup(s);
    } catch (const SpecError& e) {
        return e.what();
    }
    return "";
}

constexpr double kHostLink = 64e9;  // h100-sxm.yaml host_link_gbps

}  // namespace

class TestOffload : public QObject {
    Q_OBJECT
private slots:
    void activationsLeaveTheDevice() {
        const Estimate none = priced({});
        const Estimate one = priced({"exec.activation_offload=1", "exec.host_link_overlap=0"});
        const Estimate two = priced({"exec.activation_offload=2", "exec.host_link_overlap=0"});
        for (std::size_t s = 0; s < 2; ++s) {
            const StageEstimate &a = none.stages[s], &b = one.stages[s], &c = two.stages[s];
            const double held = double(a.inFlightPerChunk.front());
            // What one layer keeps per micro-batch, from what leaves the device.
            const double layer = double(a.memory.activations - b.memory.activations) / held;
            QVERIFY(layer > 1e6);
            QVERIFY(std::abs(double(a.memory.activations - c.memory.activations) - 2 * held * layer) <= 2);
            // Two of them in transit, whatever the count.
            QVERIFY(std::abs(double(b.memory.buffers - a.memory.buffers) - 2 * layer) <= 2);
            QCOMPARE(c.memory.buffers, b.memory.buffers);
            // Hidden behind nothing (overlap 0): each direction is exposed by the whole copy.
            const double copy = layer / kHostLink;
            QVERIFY(std::abs((b.time.forward - a.time.forward) - copy) < 1e-9 * a.time.forward + 1e-12);
            QVERIFY(std::abs((b.time.backward - a.time.backward) - copy) < 1e-9 * a.time.backward + 1e-12);
            QVERIFY(std::abs(c.time.host - 4 * copy) < 1e-12 + 1e-9 * c.time.host);
        }
        QVERIFY(one.stepSeconds > none.stepSeconds);
    }

    // At the default share (0.8) the copies of a layer over 64 GB/s hide behind the
    // stage's other 15 layers; over 1 GB/s they do not, and each direction is exposed by
    // the copy less 0.8 of the other layers' compute in that direction.
    void copiesHideBehindTheCompute() {
        const Estimate none = priced({});
        const Estimate hidden = priced({"exec.activation_offload=1"});
        QCOMPARE(hidden.stepSeconds, none.stepSeconds);
        QCOMPARE(hidden.stages[0].time.forward, none.stages[0].time.forward);
        // One layer's forward and backward: stage 0 with 16 layers against 15.
        const Estimate fewer = priced({"exec.pp_partition=[15, 17]"});
        const StageTime &a = none.stages[0].time, &f = fewer.stages[0].time;
        const double forward = a.forward - f.forward;
        const double backward = (a.backward + a.weightGrad + a.recompute) - (f.backward + f.weightGrad + f.recompute);
        const Estimate slow = priced({"exec.activation_offload=1", "cluster.device.host_link_gbps=1"});
        const double copy = slow.stages[0].time.host / 2;
        QVERIFY(copy > 15 * 0.8 * forward);  // past what the forward can hide
        const StageTime& b = slow.stages[0].time;
        QVERIFY(std::abs((b.forward - a.forward) - (copy - 0.8 * 15 * forward)) < 1e-9 * a.forward);
        QVERIFY(std::abs((b.backward - a.backward) - std::max(0.0, copy - 0.8 * 15 * backward)) < 1e-9 * a.backward);
    }

    void optimizerOnTheHost() {
        const QStringList base{"exec.grad_clip=false"};  // else the clip's read of the gradients stays on the device
        const Estimate device = priced(base);
        const Estimate host = priced(base + QStringList{"exec.optimizer_offload=1"});
        const Estimate overlapped = priced(base + QStringList{"exec.optimizer_offload=1", "exec.optimizer_offload_overlap=true"});
        const Estimate half = priced(base + QStringList{"exec.optimizer_offload=0.5"});
        for (std::size_t s = 0; s < 2; ++s) {
            QCOMPARE(host.stages[s].memory.optimizerStates, Bytes{0});
            QCOMPARE(host.stages[s].memory.mainParameters, Bytes{0});
            QCOMPARE(host.stages[s].memory.parameters, device.stages[s].memory.parameters);
            QCOMPARE(host.stages[s].memory.gradients, device.stages[s].memory.gradients);
            QVERIFY(std::abs(double(half.stages[s].memory.optimizerStates) * 2 - double(device.stages[s].memory.optimizerStates)) <= 2);
            // Its own arithmetic: fp32 gradients down and bf16 weights up over 64 GB/s, the
            // AdamW step (30 bytes an element) at the host's 76.8 GB/s; no sharding here.
            const double elements = host.stages[s].parameters;
            const double down = elements * 4 / kHostLink, up = elements * 2 / kHostLink;
            const double step = elements * (4 + 2 * 8 + 2 * 4 + 2) / 76.8e9;  // two 4-byte moments, the master copy, each read and written
            QVERIFY2(std::abs(host.stages[s].time.optimizer - (down + step + up)) < 1e-9 * (down + step + up),
                     qPrintable(QString("%1 against %2 + %3 + %4").arg(host.stages[s].time.optimizer).arg(down).arg(step).arg(up)));
            QVERIFY(std::abs(overlapped.stages[s].time.optimizer - std::max({down, step, up})) < 1e-9 * step);
        }
        QVERIFY(host.stepSeconds > device.stepSeconds);
        QVERIFY(overlapped.stepSeconds < host.stepSeconds);
    }

    // A Grace superchip's GPU reaches its host over NVLink-C2C (gh200.yaml: 450 GB/s a
    // direction; gb200.yaml: 225, the superchip's link shared by two GPUs) and the host
    // steps at its LPDDR5X rate (512 and 256 GB/s): the same arithmetic on those links,
    // and the offloaded step far cheaper than over PCIe.
    void optimizerOverNvlinkC2c() {
        const QStringList base{"exec.grad_clip=false", "exec.optimizer_offload=1"};
        const Estimate pcie = priced(base);
        for (const auto& [device, link, memory] : {std::tuple{"gh200", 450e9, 512e9}, std::tuple{"gb200", 225e9, 256e9}}) {
            const Estimate c2c = priced(base + QStringList{QString("cluster.device=") + device});
            for (std::size_t s = 0; s < 2; ++s) {
                const double elements = c2c.stages[s].parameters;
                const double expected = elements * (4 + 2) / link + elements * (4 + 2 * 8 + 2 * 4 + 2) / memory;
                QVERIFY2(std::abs(c2c.stages[s].time.optimizer - expected) < 1e-9 * expected, device);
                QVERIFY2(c2c.stages[s].time.optimizer < pcie.stages[s].time.optimizer / 3, device);
            }
        }
    }

    void wrongStatementsAreRefused_data() {
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("says");
        QTest::newRow("no host link") << QStringList{"cluster.device.host_link_gbps=null", "exec.activation_offload=1"}
                                      << "exec.activation_offload: copies to the host, and the device states no host_link_gbps";
        QTest::newRow("no host memory") << QStringList{"cluster.device.host_memory_gbps=null", "exec.optimizer_offload=0.5"}
                                        << "exec.optimizer_offload: steps the optimizer on the host, and the device states no host_memory_gbps";
        QTest::newRow("more than a stage holds") << QStringList{"exec.activation_offload=17"}
                                                 << "exec.activation_offload: stage 0 runs 16 layers in its first chunk, and 17 are to offload";
        QTest::newRow("a count per stage") << QStringList{"exec.activation_offload=[1, 2, 3]"}
                                           << "exec.activation_offload: one count per stage: pp = 2 stages, got 3";
        QTest::newRow("a share past one") << QStringList{"exec.optimizer_offload=1.5"} << "exec.optimizer_offload";
        QTest::newRow("planned search") << QStringList{"exec.activation_offload=1", "search.space.recompute=per_layer"}
                                        << "exec.activation_offload: pp_partition: auto and recompute: per_layer plan without offload";
        QTest::newRow("a list in a search") << QStringList{"exec.activation_offload=[1, 1]", "search.space.tp=auto"}
                                            << "exec.activation_offload: a search varies the stages";
    }
    void wrongStatementsAreRefused() {
        QFETCH(QStringList, sets);
        QFETCH(QString, says);
        const std::string why = refusal(sets);
        QVERIFY2(QString::fromStdString(why).contains(says), why.c_str());
    }

    // The planner does not plan around activation offload yet, and says so.
    void plannerSaysItDoesNotPlanOffload() {
        const ResolvedScenario r = resolve(scenarioFromValue(document(kBase, {"exec.activation_offload=2"}), "offload.yaml", ""));
        const Plan plan = planStrategy(costInput(r), planRequest(r));
        QVERIFY(!plan.planned);
        QVERIFY2(QString::fromStdString(plan.why).contains("activation offload"), plan.why.c_str());
    }

    // Stated per stage: each stage offloads its own count.
    void perStageCounts() {
        const Estimate none = priced({});
        const Estimate mixed = priced({"exec.activation_offload=[3, 0]"});
        QVERIFY(mixed.stages[0].memory.activations < none.stages[0].memory.activations);
        QCOMPARE(mixed.stages[1].memory.activations, none.stages[1].memory.activations);
    }
};

QTEST_GUILESS_MAIN(TestOffload)
#include "tst_offload.moc"
