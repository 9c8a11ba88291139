// How long the fit advice takes (core/fit/advice.h): the GUI asks for it after each
// evaluation, so it should come back within a frame or two. Each call resolves and
// prices every one- and two-knob move it offers, as `tessera estimate` prices one
// strategy. Reports milliseconds a call and moves priced; never fails on speed.
#include <chrono>
#include <QtTest>

#include "fit/advice.h"
#include "io/presets.h"
#include "io/scenarioio.h"

using namespace tessera;

namespace {

void report(const char* id) {
    const core::Scenario stated = core::presetScenario(id);
    const core::ResolvedScenario r = core::resolve(stated);
    const core::Estimate e = core::estimate(r);
    const int n = 10;
    core::FitAdvice advice;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) advice = core::adviseFit(stated, r, e);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / n;
    const auto single = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) core::estimate(core::resolve(stated));
    const double one = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - single).count() / n;
    qInfo("%s: %.1f ms a call, %zu moves priced (%zu refused), %zu suggestions; one resolve + estimate %.2f ms", id, ms,
          advice.priced, advice.refused, advice.suggestions.size(), one);
}

}  // namespace

class BenchFit : public QObject {
    Q_OBJECT
private slots:
    void defaultScenario() {
        const core::Scenario stated = core::presetScenario(core::kDefaultScenario);
        QBENCHMARK { core::adviseFit(stated); }
    }
    void deepseekV3() {
        const core::Scenario stated = core::presetScenario("deepseek-v3-h800x2048-1f1b");
        QBENCHMARK { core::adviseFit(stated); }
    }
    void perCall() {
        report(core::kDefaultScenario);
        report("deepseek-v3-h800x2048-1f1b");
        report("deepseek-v3-h800x2048");
    }
};

QTEST_APPLESS_MAIN(BenchFit)
#include "bench_fit.moc"
