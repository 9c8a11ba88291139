// Published measurements of real training runs (reference/measured.md, its scenario
// files copied to tests/data/measured with their sources in each header): Tessera's
// tokens per second against the measured, each row within 10 %, and the mean over
// these rows and published.md §4's (tst_time's) within 5 %. A row no modelled cause
// reaches yet is an expected failure with its figure and the reason, never a knob
// fitted to it; a row that starts to pass shows as XPASS and fails the test, so the
// list cannot go stale.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>

#include "costhelpers.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "throughputrows.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

const QString kDir = QStringLiteral(TESSERA_TEST_DATA "/measured");

// The header's measured throughput ("# Measured: ..., tokens_per_second N").
double measuredTokensPerSecond(const std::string& path) {
    std::ifstream file(path);
    const std::regex figure(R"(^# Measured:.*tokens_per_second ([0-9.]+))");
    for (std::string line; std::getline(file, line);)
        if (std::smatch m; std::regex_search(line, m, figure)) return std::stod(m[1]);
    return 0;
}

double predictedTokensPerSecond(const std::string& path) {
    Estimate e;
    evaluate(costInput(resolve(loadScenario(path))), &e);
    return e.tokensPerSecond;
}

// Rows no modelled cause reaches yet, each with why; the failure message adds the
// figure as it stands, so the reason never carries a stale number.
const std::map<QString, QString>& knownMisses() {
    static const std::map<QString, QString> kMisses = {
        {"mtnlg-530b-a100x2240",
         "the same shape as Narayanan 2021's 530B row (TP 8, PP 35), which Tessera meets within 10 %; the "
         "DeepSpeed pipeline engine's run reached 126 of Megatron's 163 TFLOP/s, and the source is a secondary "
         "quotation (measured.md). Its micro-batch size is not stated (1 assumed); the three runs' times fall with "
         "dp as a pipeline's m + 34 slots do at micro-batch 2 (mtnlgScalingReadsAsMicroBatchTwo), but an unpriced "
         "cost of some 6 s a step at micro-batch 1 fits them as well, so the assumption stays and the rows fail"},
        {"mtnlg-530b-a100x2800", "as mtnlg-530b-a100x2240"},
        {"mtnlg-530b-a100x3360", "as mtnlg-530b-a100x2240"},
    };
    return kMisses;
}

QStringList measuredFiles() {
    return QDir(kDir).entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
}

}  // namespace

class TestMeasured : public QObject {
    Q_OBJECT
private slots:
    // Every measured run ran, so each must fit its device as Tessera prices it.
    void runFitsItsDevice_data() { rowWithinTenPercent_data(); }
    void runFitsItsDevice() {
        QFETCH(QString, file);
        Estimate e;
        evaluate(costInput(resolve(loadScenario(file.toStdString()))), &e);
        QVERIFY2(e.fits, qPrintable(QString::asprintf("peak %.1f GiB of %.1f", double(e.peakMemory) / (1 << 30),
                                                      double(e.deviceMemory) / (1 << 30))));
    }

    void rowWithinTenPercent_data() {
        QTest::addColumn<QString>("file");
        for (const QString& name : measuredFiles()) QTest::newRow(qPrintable(name.chopped(5))) << kDir + "/" + name;
        QVERIFY(measuredFiles().size() >= 18);
    }
    void rowWithinTenPercent() {
        QFETCH(QString, file);
        const std::string path = file.toStdString();
        const double measured = measuredTokensPerSecond(path);
        QVERIFY2(measured > 0, "the file states no measured tokens_per_second");
        const double error = predictedTokensPerSecond(path) / measured - 1;
        const QString id = QFileInfo(file).completeBaseName();
        const QString figure = QString::asprintf("measured %.0f tokens/s, Tessera %+.1f %%", measured, error * 100);
        qInfo("%s", qPrintable(figure));
        if (auto it = knownMisses().find(id); it != knownMisses().end())
            QEXPECT_FAIL("", qPrintable(figure + ": " + it->second), Continue);
        QVERIFY2(std::abs(error) <= 0.10, qPrintable(figure));
    }

    // The MT-NLG runs (dp 8, 10, 12; 35 stages) state no micro-batch size and are priced at 1,
    // their errors growing with dp as the bubble's share does. Their iteration times fall
    // as m + 34 pipeline slots do at micro-batch 2: priced there, the three errors lie
    // within two points of each other. Not adopted (knownMisses says why); this keeps
    // that reasoning checked against the model as it changes.
    void mtnlgScalingReadsAsMicroBatchTwo() {
        double spread[3] = {0, 0, 0};
        for (const std::int64_t mbs : {1, 2}) {
            double low = 1e9, high = -1e9;
            QStringList errors;
            for (const char* n : {"2240", "2800", "3360"}) {
                const std::string path = (kDir + "/mtnlg-530b-a100x" + n + ".yaml").toStdString();
                Scenario s = loadScenario(path);
                s.exec.micro_batch_size = mbs;
                Estimate e;
                evaluate(costInput(resolve(s)), &e);
                const double error = e.tokensPerSecond / measuredTokensPerSecond(path) - 1;
                low = std::min(low, error), high = std::max(high, error);
                errors << QString::asprintf("%+.1f %%", error * 100);
            }
            spread[mbs] = high - low;
            qInfo("MT-NLG at micro_batch_size %lld: %s", (long long)mbs, qPrintable(errors.join(", ")));
        }
        QVERIFY2(spread[1] > 0.04, qPrintable(QString::number(spread[1])));
        QVERIFY2(spread[2] < 0.02, qPrintable(QString::number(spread[2])));
    }

    // The mean absolute error over measured.md's rows and published.md §4's.
    void meanWithinFivePercent() {
        double sum = 0;
        int n = 0;
        for (const QString& name : measuredFiles()) {
            const std::string path = (kDir + "/" + name).toStdString();
            sum += std::abs(predictedTokensPerSecond(path) / measuredTokensPerSecond(path) - 1), ++n;
        }
        auto published = throughputRows();
        for (const ThroughputRow& r : heldOutRows()) published.push_back(r);
        for (const ThroughputRow& r : published) {
            const Summary s = evaluate(inputYaml(throughputScenario(r)));
            sum += std::abs(tableFlopsPerStep(r) / s.stepSeconds / r.gpus / 1e12 / r.measuredTflops - 1), ++n;
        }
        const double mean = sum / n;
        qInfo("mean |error| over %d rows: %.1f %%", n, mean * 100);
        const QString figure = QString("mean |error| %1 % over %2 rows").arg(mean * 100, 0, 'f', 1).arg(n);
        QEXPECT_FAIL("", qPrintable(figure + ": the rows in knownMisses() hold it above 5 %"), Continue);
        QVERIFY2(mean <= 0.05, qPrintable(figure));
    }

    // DeepSeek-V3's published run (technical report, 2024: 2,048 H800, FP8, DualPipe, EP 64,
    // PP 16, ZeRO-1 DP; 180K H800 GPU-hours per trillion tokens, §1 and Table 1) as the
    // preset states it: it fits the H800's 80 GiB and is priced within 15 % of that rate.
    void deepSeekV3PublishedRun() {
        Estimate e;
        evaluate(costInput(resolve(presetScenario("deepseek-v3-h800x2048"))), &e);
        const double published = 1e12 / (180e3 * 3600) * 2048;  // tokens/s on 2,048 GPUs
        qInfo("DeepSeek-V3: %.2f M tokens/s against %.2f M published (%+.1f %%), peak %.1f GiB of %.1f", e.tokensPerSecond / 1e6,
              published / 1e6, (e.tokensPerSecond / published - 1) * 100, double(e.peakMemory) / (1 << 30),
              double(e.deviceMemory) / (1 << 30));
        QVERIFY(e.fits);
        QVERIFY(e.deviceMemory <= Bytes(80) << 30);
        QVERIFY(std::abs(e.tokensPerSecond / published - 1) <= 0.15);
        QVERIFY(e.breakdown.computeSlowedBySms > 0);  // DeepEP's 20 SMs are priced
    }
};

QTEST_APPLESS_MAIN(TestMeasured)
#include "tst_measured.moc"
