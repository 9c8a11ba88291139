// Time of tessera calibrate's fit on measured.md's eight open BF16 rows (DGX Cloud, H100):
// the whole fit with its leave-one-out refits, for the matmul curve and for every
// parameter those rows can determine. Reports fits per second and evaluations per fit;
// never fails on speed.
#include <QtTest>
#include <chrono>
#include <fstream>

#include "calibrate/calibrate.h"
#include "doc/files.h"
#include "io/calibrationio.h"

using namespace tessera::core;

namespace {

const QString kMeasured = QStringLiteral(TESSERA_TEST_DATA "/measured");

std::string runsFile(const QString& dir) {
    std::string runs = "runs:\n";
    for (const QString& name : QDir(kMeasured).entryList({"dgxc-*-bf16.yaml"}, QDir::Files, QDir::Name)) {
        const std::string path = (kMeasured + "/" + name).toStdString();
        std::ifstream in(path);
        std::string tokens;
        for (std::string line; std::getline(in, line);)
            if (auto at = line.find("tokens_per_second "); line.starts_with("# Measured:") && at != std::string::npos)
                tokens = std::to_string(std::stod(line.substr(at + 18)));
        runs += "  - {scenario: " + path + ", measured: {tokens_per_second: " + tokens + "}}\n";
    }
    const std::string file = (dir + "/runs.yaml").toStdString();
    writeFileAtomically(file, runs, true);
    return file;
}

}  // namespace

class BenchCalibrate : public QObject {
    Q_OBJECT
private slots:
    void fits() {
        QTemporaryDir dir;
        const RunsFile runs = readRunsFile(runsFile(dir.path()));
        for (const std::vector<std::string>& fit :
             {std::vector<std::string>{"matmul_ceiling", "matmul_knee_gflop"},
              std::vector<std::string>{"matmul_ceiling", "matmul_knee_gflop", "hbm_efficiency", "intra_link_efficiency",
                                       "inter_link_efficiency"}}) {
            const auto start = std::chrono::steady_clock::now();
            const Calibration c = calibrate(runs, fit);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            qInfo("%zu runs, %zu parameters: %.3f s a fit with its %zu leave-one-out refits (mean |error| %.1f %% -> %.1f %%, "
                  "leave-one-out %.1f %%)",
                  runs.runs.size(), fit.size(), seconds, runs.runs.size(), c.meanBefore * 100, c.meanAfter * 100,
                  c.leaveOneOut * 100);
        }
    }
    // (Its own slot: QBENCHMARK runs the whole slot again for each of its rounds.)
    void curveFit() {
        QTemporaryDir dir;
        const RunsFile runs = readRunsFile(runsFile(dir.path()));
        const std::vector<std::string> curve{"matmul_ceiling", "matmul_knee_gflop"};
        QBENCHMARK { calibrate(runs, curve); }
    }
};

QTEST_GUILESS_MAIN(BenchCalibrate)
#include "bench_calibrate.moc"
