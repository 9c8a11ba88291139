// The slowest-device effect (cluster.rank_speed_spread, model/slowestdevice.h): the
// expected slowest of N devices against the order-statistics tables, the compute (and
// only the compute) slowed by it, the wait reported apart and MFU still against the
// device's own peak, and the field's one owner: the scenario or its calibration.
#include <QtTest>

#include <cmath>

#include "io/overrides.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/slowestdevice.h"
#include "report/estimatereport.h"
#include "resolve/resolve.h"

using namespace tessera::core;

namespace {

// Llama-3 8B, pure data parallelism over 64 H100, the gradient reduction exposed at the
// step's end, so the communication is apart from the compute.
const char* kDataParallel = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 64}\n"
                            "exec: {tp: 1, pp: 1, seq_length: 2048, global_batch_size: 64, overlapped_grad_reduce: false}\n";
const char* kOneDevice = "model: {preset: llama3-8b, num_hidden_layers: 4}\ncluster: {device: h100-sxm, devices: 1}\n"
                         "exec: {tp: 1, pp: 1, seq_length: 2048, global_batch_size: 8}\n";

Scenario stated(const char* yaml, const QStringList& sets) {
    Value doc = parseDocument(yaml, "slowest.yaml", Format::Yaml);
    for (const QString& set : sets) applyOverride(doc, set.toStdString());
    return scenarioFromValue(doc, "slowest.yaml", "");
}

Estimate priced(const char* yaml, const QStringList& sets) { return estimate(resolve(stated(yaml, sets))); }

}  // namespace

class TestSlowestDevice : public QObject {
    Q_OBJECT
private slots:
    // E[max of n standard normals]: closed forms for 2 and 3 (1/sqrt(pi), 3/(2 sqrt(pi))),
    // and Harter's 1961 table (Biometrika 48, "Expected values of normal order statistics")
    // for 4, 5, 10 and 1,000.
    void expectedMaximumMeetsTheTables_data() {
        QTest::addColumn<qlonglong>("n");
        QTest::addColumn<double>("expected");
        QTest::addColumn<double>("tolerance");
        const double pi = std::acos(-1.0);
        QTest::newRow("1") << 1LL << 0.0 << 0.0;
        QTest::newRow("2 (closed form)") << 2LL << 1 / std::sqrt(pi) << 1e-9;
        QTest::newRow("3 (closed form)") << 3LL << 1.5 / std::sqrt(pi) << 1e-9;
        QTest::newRow("4 (Harter 1961)") << 4LL << 1.02938 << 1e-5;
        QTest::newRow("5 (Harter 1961)") << 5LL << 1.16296 << 1e-5;
        QTest::newRow("10 (Harter 1961)") << 10LL << 1.53875 << 1e-5;
        QTest::newRow("1000 (Harter 1961)") << 1000LL << 3.24144 << 1e-4;
    }
    void expectedMaximumMeetsTheTables() {
        QFETCH(qlonglong, n);
        QFETCH(double, expected);
        QFETCH(double, tolerance);
        const double got = expectedMaxOfNormals(n);
        QVERIFY2(std::abs(got - expected) <= tolerance, qPrintable(QString("E[max of %1] = %2, table %3").arg(n).arg(got, 0, 'f', 7).arg(expected)));
    }

    // It grows with the device count, and stays under its bound sqrt(2 ln n).
    void expectedMaximumGrowsWithTheDevices() {
        double last = 0;
        for (std::int64_t n : {2, 8, 64, 512, 4096, 32768, 262144}) {
            const double e = expectedMaxOfNormals(n);
            QVERIFY(e > last);
            QVERIFY(e < std::sqrt(2 * std::log(double(n))));
            last = e;
        }
    }

    // A 3 % spread on 64 devices: every kernel runs at the slowest device's pace, the
    // network does not, and the wait is told apart.
    void spreadSlowsTheComputeOnly() {
        const Estimate even = priced(kDataParallel, {});
        const Estimate spread = priced(kDataParallel, {"cluster.rank_speed_spread=0.03"});
        const double factor = 1 + 0.03 * expectedMaxOfNormals(64);
        QCOMPARE(even.slowestDeviceFactor, 1.0);
        QCOMPARE(even.breakdown.computeWaitingOnSlowest, 0.0);
        QVERIFY(qFuzzyCompare(spread.slowestDeviceFactor, factor));
        const StageTime &a = even.stages[0].time, &b = spread.stages[0].time;
        QVERIFY(qFuzzyCompare(b.forward / a.forward, factor));
        QVERIFY(qFuzzyCompare(b.backward / a.backward, factor));
        QCOMPARE(b.dp, a.dp);  // the reduction rides the network at its own rate
        QVERIFY(spread.stepSeconds > even.stepSeconds);
        const TimeBreakdown& t = spread.breakdown;
        QVERIFY(qFuzzyCompare(t.computeWaitingOnSlowest, (t.compute + t.recompute) * (1 - 1 / factor)));
        // MFU against the device's peak: the same FLOPs over a longer step.
        QVERIFY(qFuzzyCompare(spread.mfu * spread.stepSeconds, even.mfu * even.stepSeconds));
        const std::string text = estimateText(resolve(stated(kDataParallel, {"cluster.rank_speed_spread=0.03"})), spread);
        QVERIFY2(text.find("waiting for the slowest of 64 devices") != std::string::npos, text.c_str());
        QVERIFY(estimateText(resolve(stated(kDataParallel, {})), even).find("slowest of") == std::string::npos);
    }

    // One device waits for nobody.
    void oneDeviceWaitsForNobody() {
        const Estimate even = priced(kOneDevice, {});
        const Estimate spread = priced(kOneDevice, {"cluster.rank_speed_spread=0.05"});
        QCOMPARE(spread.stepSeconds, even.stepSeconds);
        QCOMPARE(spread.slowestDeviceFactor, 1.0);
    }

    // Unstated, 0 and said so; a calibration's fit fills it; stated beside one, refused.
    void oneOwner() {
        const ResolvedScenario plain = resolve(stated(kDataParallel, {}));
        QCOMPARE(*plain.scenario.cluster.rank_speed_spread, 0.0);
        QVERIFY(plain.filled.at("cluster.rank_speed_spread").origin == Origin::Default);

        CalibrationSpec fitted;
        fitted.rank_speed_spread = 0.02;
        Scenario calibrated = stated(kDataParallel, {});
        calibrated.calibration = fitted;
        const ResolvedScenario r = resolve(calibrated);
        QCOMPARE(*r.scenario.cluster.rank_speed_spread, 0.02);
        QVERIFY(r.filled.at("cluster.rank_speed_spread").origin == Origin::Derived);
        QVERIFY(qFuzzyCompare(estimate(r).stepSeconds, priced(kDataParallel, {"cluster.rank_speed_spread=0.02"}).stepSeconds));

        Scenario both = stated(kDataParallel, {"cluster.rank_speed_spread=0.01"});
        both.calibration = fitted;
        try {
            resolve(both);
            QFAIL("a spread stated beside a calibration that fits it was accepted");
        } catch (const SpecError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("cluster.rank_speed_spread") != std::string::npos && what.find("one place") != std::string::npos,
                     what.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestSlowestDevice)
#include "tst_slowestdevice.moc"
