// The threaded search under stress: a thousand runs of runSearch on two to four
// threads, with or without a progress callback, cancelled from another std::thread at
// a random moment (or before the start, or never), in a seeded random order. Every run
// must end, and its result must add up: what was visited is exactly what was refused
// plus what fit, a cancelled run visited less than the whole space, an uncancelled one
// gives the same answer as a single-threaded reference. Written to be run under the
// sanitizers (tests/sanitize/run.sh) as much as in the normal build; a few seconds there.
// TESSERA_STRESS_SEED replays another order.
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "io/scenarioio.h"
#include "model/estimate.h"
#include "search/search.h"

using namespace tessera::core;

namespace {

constexpr int kRuns = 1000;

// 23,040 candidates (a dozen of the search's work blocks), a few ms on one thread:
// small enough for a thousand runs, large enough that cancels land mid-search. The
// schedules are the closed-form three: `auto` also walks the simulated ones (DualPipe,
// paired 1F1B), which made each run 7x slower and the thousand past Qt Test's
// five-minute watchdog under TSan; tst_search and tst_searchagrees cover those.
const char* kSmall =
    "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\nexec: {seq_length: 4096}\n"
    "search:\n  space: {tp: auto, pp: auto, vpp: auto, cp: [1, 2], micro_batch_size: auto, recompute: auto,\n"
    "          sequence_parallel: auto, pp_schedule: [gpipe, 1f1b, interleaved],\n"
    "          optimizer_parallel: auto}\n"
    "  constraints: {global_batch_size: 64}\n";

unsigned seed() {
    const char* s = std::getenv("TESSERA_STRESS_SEED");
    return s ? unsigned(std::strtoul(s, nullptr, 10)) : 20240601u;
}

bool same(const Candidate& a, const Candidate& b) {
    return a.index == b.index && a.peakMemory == b.peakMemory && a.stepSeconds == b.stepSeconds;
}

// Sets the flag `delay` after the search starts, from its own thread, unless told
// first that the search is over (so a late cancel costs no sleeping). The constructor
// returns once the thread runs: on a busy machine a thread can take milliseconds to be
// scheduled, and the delay should count from the search's start, not from then.
class Canceller {
public:
    Canceller(std::atomic<bool>& flag, std::chrono::microseconds delay)
        : m_thread([this, &flag, delay] {
              std::unique_lock lock(m_mutex);
              m_armed = true;
              m_wake.notify_all();
              if (!m_wake.wait_for(lock, delay, [this] { return m_done; })) flag.store(true);
          }) {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [this] { return m_armed; });
    }
    ~Canceller() {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_armed = false, m_done = false;
    std::thread m_thread;  // last: starts once the members above exist
};

}  // namespace

class TestSearchStress : public QObject {
    Q_OBJECT
private slots:
    void cancelAtRandomPoints() {
        const SearchSetup setup = searchSetup(parseScenario(kSmall, "stress.yaml", Format::Yaml, ""));
        const SearchResult reference = runSearch(setup);
        QVERIFY(reference.spaceSize > 4 * 2048 && reference.feasible > 0);

        const unsigned s = seed();
        std::mt19937 random(s);
        // Cancels land anywhere in the time a two-thread run takes here (a few land
        // after the end), so the time scale follows the machine and the sanitizer.
        SearchOptions two;
        two.threads = 2;
        double took[3];
        for (double& t : took) t = runSearch(setup, two).elapsedSeconds;
        std::sort(std::begin(took), std::end(took));
        const int longest = std::max(1, int(took[1] * 1e6));  // the median: one slow run is noise
        int before = 0, midway = 0, whole = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int run = 0; run < kRuns; ++run) {
            SearchOptions options;
            options.threads = 2 + int(random() % 3);
            std::atomic<bool> cancel{false};
            options.cancel = &cancel;

            // Progress is reported on the caller's thread, in order; recorded here and
            // checked after the run (QVERIFY belongs to this thread).
            const std::thread::id caller = std::this_thread::get_id();
            bool wrongThread = false, backwards = false, outOfRange = false;
            std::uint64_t lastCount = 0;
            const bool withProgress = random() % 2;
            if (withProgress)
                options.progress = [&](const SearchProgress& p) {
                    wrongThread |= std::this_thread::get_id() != caller;
                    backwards |= p.candidates < lastCount;
                    outOfRange |= p.fraction < 0 || p.fraction > 1 || p.candidates > reference.spaceSize;
                    lastCount = p.candidates;
                };

            SearchResult r;
            const unsigned mode = random() % 20;
            if (mode == 0) {  // cancelled before it starts
                cancel = true;
                r = runSearch(setup, options);
            } else if (mode == 1) {  // never cancelled
                r = runSearch(setup, options);
            } else {
                // Most land early, while blocks are still unclaimed: the workers claim
                // the last one well before the run's end (joins and the merge follow).
                const double u = std::uniform_real_distribution<double>(0, 1)(random);
                Canceller canceller(cancel, std::chrono::microseconds(int(u * u * longest / 2)));
                r = runSearch(setup, options);
            }

            const QByteArray where = QByteArray("run ") + QByteArray::number(run) + " (seed " + QByteArray::number(s) +
                                     ", " + QByteArray::number(options.threads) + " threads)";
            QVERIFY2(!wrongThread && !backwards && !outOfRange, where);
            QVERIFY2(r.spaceSize == reference.spaceSize && r.visited <= r.spaceSize, where);
            std::uint64_t refused = 0;
            for (const auto& [why, n] : r.refused) refused += n;
            QVERIFY2(refused + r.feasible == r.visited, where);  // every visited candidate is accounted for
            QVERIFY2(r.feasible <= r.evaluated, where);
            QVERIFY2(r.cancelled == (r.visited < r.spaceSize), where);
            if (mode == 0) QVERIFY2(r.visited == 0 && r.top.empty(), where);
            if (mode == 1) QVERIFY2(!r.cancelled, where);

            if (!r.cancelled) {  // the whole space: the same answer whatever the threads
                ++whole;
                QVERIFY2(r.refused == reference.refused && r.top.size() == reference.top.size() &&
                             r.pareto.size() == reference.pareto.size(),
                         where);
                for (std::size_t i = 0; i < r.top.size(); ++i) QVERIFY2(same(r.top[i], reference.top[i]), where);
                for (std::size_t i = 0; i < r.pareto.size(); ++i) QVERIFY2(same(r.pareto[i], reference.pareto[i]), where);
            } else {  // part of it: still sorted, fitting, and priced as the cost model prices it
                mode == 0 ? ++before : ++midway;
                QVERIFY2(r.top.size() <= reference.top.size(), where);
                for (std::size_t i = 1; i < r.top.size(); ++i) QVERIFY2(r.top[i - 1].stepSeconds <= r.top[i].stepSeconds, where);
                for (const Candidate& c : r.top) QVERIFY2(c.peakMemory <= setup.space.memoryLimit, where);
                for (std::size_t i = 1; i < r.pareto.size(); ++i)
                    QVERIFY2(r.pareto[i - 1].peakMemory <= r.pareto[i].peakMemory &&
                                 r.pareto[i - 1].stepSeconds > r.pareto[i].stepSeconds,
                             where);
                if (!r.top.empty()) {
                    const Summary again = evaluate(candidateInput(setup, r.top.front()));
                    QVERIFY2(again.peakMemory == r.top.front().peakMemory && again.stepSeconds == r.top.front().stepSeconds,
                             where);
                }
            }
        }
        qInfo("%d runs (seed %u) in %.2f s: %d cancelled before the start, %d cancelled midway, %d searched the whole "
              "space of %llu (cancels within %d us)",
              kRuns, s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), before, midway,
              whole, (unsigned long long)reference.spaceSize, longest);
    }
};

QTEST_APPLESS_MAIN(TestSearchStress)
#include "tst_searchstress.moc"
