// The pipeline timeline: its pure mapping (every event placed once, lanes apart,
// time monotonic, zoom and pan keeping their promises, the long-schedule
// compression) and the widget that paints it (offscreen; not blank; hover says
// what a box is). Set TESSERA_SCREENSHOT_DIR to keep the pictures.
#include <QToolTip>
#include <QtTest>

#include "imagechecks.h"

#include <algorithm>
#include <cmath>

#include "io/presets.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "pipeline/schedule.h"
#include "resolve/resolve.h"
#include "model/evaluation.h"
#include "views/timelinemapping.h"
#include "views/timelinewidget.h"

using namespace tessera;
using ui::TimelineLayout;

namespace {

const QSizeF kViewport(1000, 400);

// One micro-batch takes F = 1, B = 2 and W = w on a whole stage, split over its
// chunks; `slowLast` makes the last stage 1.5x slower (a straggler: bubbles inside
// the steady state too).
core::PipelineResult simulate(const QString& schedule, int p, int m, int v, double w = 0, bool slowLast = false) {
    core::PipelineInput in{schedule.toStdString(), p, v, m, {}, 0, {}, {}};
    for (int s = 0; s < p; ++s) {
        const double k = slowLast && s == p - 1 ? 1.5 : 1.0;
        in.times.emplace_back(std::size_t(v), core::StageTimes{k / v, 2 * k / v, k * w / v});
    }
    return core::simulatePipeline(in);
}

void scheduleColumns() {
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("w");
    QTest::addColumn<bool>("slowLast");
}

// Rows small enough to draw every box at zoom 1 in 1000 px.
void scheduleRows() {
    scheduleColumns();
    QTest::newRow("gpipe p4 m8") << "gpipe" << 4 << 8 << 1 << 0.0 << false;
    QTest::newRow("gpipe p2 m1") << "gpipe" << 2 << 1 << 1 << 0.0 << false;
    QTest::newRow("1f1b p1 m4") << "1f1b" << 1 << 4 << 1 << 0.0 << false;
    QTest::newRow("1f1b p4 m16") << "1f1b" << 4 << 16 << 1 << 0.0 << false;
    QTest::newRow("1f1b p8 m32 split weight gradient") << "1f1b" << 8 << 32 << 1 << 0.5 << false;
    QTest::newRow("1f1b p4 m12 slow last stage") << "1f1b" << 4 << 12 << 1 << 0.0 << true;
    QTest::newRow("interleaved p4 m8 v2") << "interleaved" << 4 << 8 << 2 << 0.0 << false;
    QTest::newRow("interleaved p2 m8 v4 split weight gradient") << "interleaved" << 2 << 8 << 4 << 0.5 << false;
    QTest::newRow("interleaved p4 m16 v3 slow last stage") << "interleaved" << 4 << 16 << 3 << 0.0 << true;
    QTest::newRow("zb-h1 p4 m12") << "zb-h1" << 4 << 12 << 1 << 0.5 << false;
    QTest::newRow("zb-h1 p4 m12 slow last stage") << "zb-h1" << 4 << 12 << 1 << 1.0 << true;
}

// Schedules long enough that a box is under 2 px at zoom 1.
void longRows() {
    scheduleColumns();
    QTest::newRow("1f1b p8 m512") << "1f1b" << 8 << 512 << 1 << 0.0 << false;
    QTest::newRow("1f1b p8 m512 slow last stage") << "1f1b" << 8 << 512 << 1 << 0.0 << true;
    QTest::newRow("interleaved p8 m512 v2") << "interleaved" << 8 << 512 << 2 << 0.0 << false;
    QTest::newRow("gpipe p8 m512") << "gpipe" << 8 << 512 << 1 << 0.0 << false;
}

core::PipelineResult fetchResult() {
    QFETCH(QString, schedule);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    QFETCH(double, w);
    QFETCH(bool, slowLast);
    return simulate(schedule, p, m, v, w, slowLast);
}

bool same(const ui::TimelineBox& b, const core::PipelineEvent& e) {
    return b.stage == e.stage && b.microBatch == e.microBatch && b.chunk == e.chunk && b.phase == e.phase;
}

// Per lane, boxes, bands and bubbles in time must tile [0, makespan] exactly.
void checkCoverage(const TimelineLayout& layout, const core::PipelineResult& r) {
    const double eps = 1e-9 * r.makespan;
    for (int s = 0; s < layout.stages(); ++s) {
        std::vector<std::pair<double, double>> spans;
        for (const auto& b : layout.boxes())
            if (b.stage == s) spans.push_back({b.start, b.end});
        for (const auto& b : layout.bands())
            if (b.stage == s) spans.push_back({b.start, b.end});
        for (const auto& b : layout.bubbles())
            if (b.stage == s) spans.push_back({b.start, b.end});
        std::sort(spans.begin(), spans.end());
        double reach = 0;
        for (const auto& [start, end] : spans) {
            QVERIFY2(std::abs(start - reach) <= eps,
                     qPrintable(QString("stage %1: gap or overlap at %2 s").arg(s).arg(reach)));
            reach = end;
        }
        QVERIFY2(std::abs(reach - r.makespan) <= eps, qPrintable(QString("stage %1 ends at %2 s").arg(s).arg(reach)));
    }
}

core::Estimate defaultEstimate(std::string* schedule, int* chunks, int* microBatches) {
    const core::ResolvedScenario r = core::resolve(core::presetScenario(core::kDefaultScenario));
    *schedule = *r.scenario.exec.pp_schedule;
    *chunks = int(*r.scenario.exec.vpp);
    *microBatches = int(*r.scenario.exec.micro_batch_num);
    return core::estimate(r);
}

void saveScreenshot(const QImage& image, const QString& name) {
    if (const QByteArray dir = qgetenv("TESSERA_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(image.save(QString::fromLocal8Bit(dir) + "/" + name));
}

}  // namespace

class TestTimeline : public QObject {
    Q_OBJECT
private slots:
    void everyEventIsOneBoxInsideTheViewport_data() { scheduleRows(); }
    void everyEventIsOneBoxInsideTheViewport() {
        const core::PipelineResult r = fetchResult();
        const TimelineLayout layout(r, kViewport, 1, 0);
        QVERIFY(!layout.compressed());
        QCOMPARE(layout.boxes().size(), r.events.size());
        const QRectF viewport(QPointF(0, 0), kViewport), plot = layout.plotRect().adjusted(-1e-9, -1e-9, 1e-9, 1e-9);
        QVERIFY(viewport.contains(layout.plotRect()));
        for (const core::PipelineEvent& e : r.events) {
            const auto n =
                std::count_if(layout.boxes().begin(), layout.boxes().end(), [&](const auto& b) { return same(b, e); });
            QCOMPARE(n, 1);
        }
        for (const ui::TimelineBox& b : layout.boxes()) QVERIFY(plot.contains(b.rect));
    }

    void lanesStackWithoutOverlap_data() { scheduleRows(); }
    void lanesStackWithoutOverlap() {
        const core::PipelineResult r = fetchResult();
        const TimelineLayout layout(r, kViewport, 1, 0);
        QCOMPARE(layout.stages(), int(r.busy.size()));
        for (int s = 0; s + 1 < layout.stages(); ++s)  // stage 0 on top, a gap between lanes
            QVERIFY(layout.laneRect(s).bottom() < layout.laneRect(s + 1).top());
        for (const ui::TimelineBox& b : layout.boxes()) {
            QCOMPARE(b.rect.top(), layout.laneRect(b.stage).top());
            QCOMPARE(b.rect.bottom(), layout.laneRect(b.stage).bottom());
        }
        QVERIFY(layout.laneRect(layout.stages() - 1).bottom() <= layout.plotRect().bottom());
    }

    void timeRunsRightAndMapsBack_data() {
        longRows();
        scheduleRows();
    }
    void timeRunsRightAndMapsBack() {
        const core::PipelineResult r = fetchResult();
        for (double zoom : {1.0, 3.0, 40.0}) {
            const TimelineLayout layout(r, kViewport, zoom, r.makespan / 7);
            double last = -1e300;
            for (int i = -10; i <= 1010; ++i) {  // a little past both ends too
                const double t = r.makespan * i / 1000, x = layout.xAt(t);
                QVERIFY(x > last);
                QVERIFY(std::abs(layout.secondsAt(x) - t) <= 1e-9 * r.makespan);
                last = x;
            }
            double tickX = layout.plotRect().left() - 1;  // time labels run right, inside the plot
            for (const ui::TimelineTick& tick : layout.ticks()) {
                QVERIFY(tick.x > tickX && tick.x <= layout.plotRect().right() + 1e-6 && !tick.text.isEmpty());
                tickX = tick.x;
            }
            QVERIFY(layout.ticks().size() >= 2);
            for (const ui::TimelineBox& b : layout.boxes()) {
                QVERIFY(std::abs(b.rect.left() - layout.xAt(b.start)) < 1e-9);
                QVERIFY(std::abs(b.rect.right() - layout.xAt(b.end)) < 1e-9);
            }
        }
    }

    void zoomKeepsTheTimeUnderTheCursor_data() {
        longRows();
        scheduleRows();
    }
    void zoomKeepsTheTimeUnderTheCursor() {
        const core::PipelineResult r = fetchResult();
        for (double x : {100.0, 480.0, 900.0})
            for (auto [from, to] : {std::pair{1.0, 1.2}, {1.0, 30.0}, {6.0, 2.5}, {2.0, 200.0}}) {
                const TimelineLayout before(r, kViewport, from, 0);
                const double t = before.secondsAt(x);
                const double pan = TimelineLayout(r, kViewport, to, 0).panKeeping(t, x);
                const TimelineLayout after(r, kViewport, to, pan);
                QVERIFY2(std::abs(after.xAt(t) - x) < 1e-6,
                         qPrintable(QString("x %1, zoom %2 -> %3").arg(x).arg(from).arg(to)));
            }
    }

    void panShiftsEveryBox_data() { scheduleRows(); }
    void panShiftsEveryBox() {
        const core::PipelineResult r = fetchResult();
        const double zoom = 4, pan = r.makespan / 4, by = r.makespan / 20;
        const TimelineLayout a(r, kViewport, zoom, pan), b(r, kViewport, zoom, pan + by);
        QCOMPARE(b.secondsAt(b.plotRect().left()), pan + by);
        const double shift = by * zoom * a.plotRect().width() / r.makespan;
        int both = 0;
        for (const ui::TimelineBox& x : a.boxes())
            for (const ui::TimelineBox& y : b.boxes())
                if (x.stage == y.stage && x.start == y.start) {
                    QVERIFY(std::abs(x.rect.left() - shift - y.rect.left()) < 1e-6);
                    ++both;
                }
        QVERIFY(both > 0);
        QVERIFY(a.boxes().size() < r.events.size());  // zoomed in, some are off screen
        QCOMPARE(a.clampPan(-1.0), 0.0);
        const TimelineLayout last(r, kViewport, zoom, a.clampPan(2 * r.makespan));  // panned to the end
        QVERIFY(std::abs(last.xAt(r.makespan) - last.plotRect().right()) < 1e-6);
    }

    void hitTestFindsTheBox_data() { scheduleRows(); }
    void hitTestFindsTheBox() {
        const core::PipelineResult r = fetchResult();
        const TimelineLayout layout(r, kViewport, 1, 0);
        for (const ui::TimelineBox& b : layout.boxes()) {
            if (b.rect.width() < 1) continue;
            QCOMPARE(layout.boxAt(b.rect.center()), &b);
            QCOMPARE(layout.boxAt(b.rect.center() + QPointF(b.rect.width() * 0.4, b.rect.height() * 0.4)), &b);
            QCOMPARE(layout.hoverText(b.rect.center()), ui::describe(b));
        }
        QCOMPARE(layout.boxAt(QPointF(10, layout.laneRect(0).center().y())), nullptr);  // the label margin
        if (layout.stages() > 1) {
            const double between = (layout.laneRect(0).bottom() + layout.laneRect(1).top()) / 2;
            QCOMPARE(layout.boxAt(QPointF(layout.plotRect().center().x(), between)), nullptr);
        }
        for (const ui::TimelineBubble& b : layout.bubbles())
            if (b.rect.width() >= 1) QCOMPARE(layout.bubbleAt(b.rect.center()), &b);
    }

    // DualPipe's F&B pairs: the two halves share one span, forward over backward, each
    // found by the pointer and each naming its partner.
    void pairedHalvesShareTheirSpan() {
        const core::PipelineResult r = simulate("dualpipe", 4, 16, 2, 0.5);
        const TimelineLayout layout(r, kViewport, 1, 0);
        QCOMPARE(layout.boxes().size(), r.events.size());
        int pairs = 0;
        for (const ui::TimelineBox& b : layout.boxes()) {
            const QRectF lane = layout.laneRect(b.stage);
            if (!b.paired) {
                QCOMPARE(b.rect.top(), lane.top());
                QCOMPARE(b.rect.bottom(), lane.bottom());
                continue;
            }
            ++pairs;
            QVERIFY(b.pairMicroBatch >= 0);
            if (b.phase == core::Phase::Forward) {
                QCOMPARE(b.rect.top(), lane.top());
                QCOMPARE(b.rect.bottom(), lane.center().y());
            } else {
                QCOMPARE(b.phase, core::Phase::Backward);
                QCOMPARE(b.rect.top(), lane.center().y());
                QCOMPARE(b.rect.bottom(), lane.bottom());
            }
            if (b.rect.width() >= 1) QCOMPARE(layout.boxAt(b.rect.center()), &b);
            QVERIFY2(ui::describe(b).contains(QString("overlapped with micro-batch %1's").arg(b.pairMicroBatch)),
                     qPrintable(ui::describe(b)));
        }
        QVERIFY(pairs > 0 && pairs % 2 == 0);
        // Split backwards name themselves; a backward that holds its W says so.
        bool whole = false;
        for (const ui::TimelineBox& b : layout.boxes()) whole |= b.withWeightGrad;
        QVERIFY(whole);
    }

    // The communication lane: under each box along its lane's bottom, the box's exposed
    // communication solid and its hidden light, each as its share of the box; in an F&B
    // pair the forward's over the backward's, and what the pair hides is the hidden
    // part. No lane where nothing communicates.
    void communicationLaneUnderTheBoxes() {
        core::PipelineInput in{"dualpipe", 4, 2, 16, {}, 0, {}, {}};
        for (int s = 0; s < 4; ++s)
            in.times.emplace_back(2, core::StageTimes{1, 1, 0.5, 0.3, 0.4, 0.1, 0.2});
        const core::PipelineResult r = core::simulatePipeline(in);
        const TimelineLayout layout(r, kViewport, 1, 0);
        int paired = 0, alone = 0;
        for (const ui::TimelineBox& b : layout.boxes()) {
            const QRectF lane = layout.laneRect(b.stage);
            if (b.phase == core::Phase::WeightGrad) {
                QCOMPARE(b.commExposed + b.commHidden, 0.0);
                continue;
            }
            QVERIFY(!b.commRect.isEmpty());
            QVERIFY(b.commRect.bottom() <= lane.bottom() + 1e-9 && b.commRect.top() > b.rect.top());
            QCOMPARE(b.commRect.left(), b.rect.left());
            QVERIFY2(ui::describe(b).contains("communication"), qPrintable(ui::describe(b)));
            const bool forward = b.phase == core::Phase::Forward;
            const double comm = forward ? 0.3 : 0.4, own = forward ? 0.1 : 0.2;
            if (b.paired) {  // each half's comm is shorter than the other's compute: all hidden
                ++paired;
                QVERIFY(std::abs(b.commExposed) < 1e-12);
                QVERIFY(std::abs(b.commHidden - (comm + own)) < 1e-12);
            } else {
                ++alone;
                QVERIFY(std::abs(b.commExposed - comm) < 1e-12);
                QVERIFY(std::abs(b.commHidden - own) < 1e-12);
                QVERIFY(b.rect.bottom() < b.commRect.top());  // the box stands above its lane
            }
        }
        QVERIFY(paired > 0 && alone > 0);
        // Nothing to communicate: no lane, boxes the lane's full height.
        const TimelineLayout bare(simulate("1f1b", 4, 8, 1), kViewport, 1, 0);
        for (const ui::TimelineBox& b : bare.boxes()) {
            QVERIFY(b.commRect.isEmpty());
            QCOMPARE(b.rect.bottom(), bare.laneRect(b.stage).bottom());
        }
    }

    void boxesAndBubblesTileEachLane_data() {
        scheduleRows();
        longRows();
    }
    void boxesAndBubblesTileEachLane() {
        const core::PipelineResult r = fetchResult();
        const TimelineLayout layout(r, kViewport, 1, 0);
        checkCoverage(layout, r);
        if (layout.compressed()) return;
        double idle = 0;  // and the hatched area is the bubble the schedule reports
        for (const ui::TimelineBubble& b : layout.bubbles()) idle += b.end - b.start;
        QVERIFY(std::abs(idle / (layout.stages() * r.makespan) - r.bubbleFraction) < 1e-12);
    }

    void longSchedulesCompressTheSteadyState_data() { longRows(); }
    void longSchedulesCompressTheSteadyState() {
        QFETCH(QString, schedule);
        QFETCH(int, p);
        QFETCH(int, m);
        const core::PipelineResult r = fetchResult();
        const TimelineLayout layout(r, kViewport, 1, 0);
        QVERIFY(layout.compressed());
        const int stretches = schedule == "gpipe" ? 2 : 1;  // gpipe: its forward and its backward phase
        QCOMPARE(int(layout.bands().size()), p * stretches);
        std::size_t inBands = 0;
        for (const ui::TimelineBand& b : layout.bands()) {
            QVERIFY(b.microBatches > m / 2);
            QVERIFY(QRectF(QPointF(0, 0), kViewport).contains(b.rect));
            QCOMPARE(ui::bandLabel(b),
                     QString("steady state: %1 micro-batches").arg(QLocale().toString(b.microBatches)));
            inBands += std::size_t(b.events);
        }
        QCOMPARE(layout.boxes().size() + inBands, r.events.size());  // nothing lost, nothing twice
        // The first and last p micro-batches stay in full, wide enough to read.
        for (const core::PipelineEvent& e : r.events) {
            if (e.microBatch >= p && e.microBatch < m - p) continue;
            const auto it =
                std::find_if(layout.boxes().begin(), layout.boxes().end(), [&](const auto& b) { return same(b, e); });
            QVERIFY2(it != layout.boxes().end(),
                     qPrintable(QString("micro-batch %1 on stage %2").arg(e.microBatch).arg(e.stage)));
            const double uniform = (e.end - e.start) * layout.plotRect().width() / r.makespan;
            QVERIFY(it->rect.width() >= 3 && it->rect.width() >= 5 * uniform);
        }
        // Zoomed in until a uniform box is 2 px wide, the boxes come back.
        double shortest = r.makespan;
        for (const core::PipelineEvent& e : r.events) shortest = std::min(shortest, e.end - e.start);
        const double uniformZoom = 2.0 / (layout.plotRect().width() / r.makespan * shortest);
        const TimelineLayout zoomed(r, kViewport, uniformZoom * 1.1, r.makespan / 2);
        QVERIFY(!zoomed.compressed());
        QVERIFY(zoomed.bands().empty());
        QVERIFY(!zoomed.boxes().empty());
    }

    void pipelineInputFromAnEstimate() {
        core::Estimate e;
        for (int s = 0; s < 2; ++s) {
            core::StageEstimate& stage = e.stages.emplace_back();
            stage.stage = s;
            stage.time.forward = 0.5 + s, stage.time.backward = 1, stage.time.weightGrad = 0.25,
            stage.time.recompute = 0.125;
        }
        const core::PipelineInput merged = core::pipelineInputFor(e, "interleaved", 2, 4);
        QCOMPARE(merged.stages, 2);
        QCOMPARE(merged.times[1].size(), std::size_t(2));
        QCOMPARE(merged.times[1][1].forward, 0.75);
        QCOMPARE(merged.times[0][0].backward,
                 (1 + 0.25 + 0.125) / 2);  // recompute and weight gradient in the backward box
        QCOMPARE(merged.times[0][0].weightGrad, 0.0);
        const core::PipelineInput split = core::pipelineInputFor(e, "1f1b", 1, 4, core::WeightGradBoxes::Split);
        QCOMPARE(split.times[0][0].backward, 1.125);
        QCOMPARE(split.times[0][0].weightGrad, 0.25);
        // Merged, the timeline's makespan is the one the estimate's closed form gives.
        const core::PipelineInput oneFOneB = core::pipelineInputFor(e, "1f1b", 1, 4);
        QCOMPARE(core::simulatePipeline(oneFOneB).makespan, core::closedFormMakespan(oneFOneB));
        QVERIFY(core::simulatePipeline(split).makespan < core::simulatePipeline(oneFOneB).makespan);  // header's caveat
    }

    void textsReadTheSameEverywhere() {
        QCOMPARE(ui::secondsText(13.5), QString("13.5 s"));
        QCOMPARE(ui::secondsText(0.0768), QString("76.8 ms"));
        QCOMPARE(ui::secondsText(0.99996), QString("1.00 s"));
        QCOMPARE(ui::secondsText(123.4), QString("123 s"));
        QCOMPARE(ui::secondsText(5e-5), QString("50.0 µs"));
        const ui::TimelineBox box{{}, 1, 7, 0, core::Phase::Backward, 12.345, 12.4218, false};
        QCOMPARE(ui::describe(box),
                 QString("stage 1 · micro-batch 7 · chunk 0 · backward · 76.8 ms (12.345–12.422 s)"));
    }

    void widgetPaintsTheDefaultScenario() {
        std::string schedule;
        int chunks = 0, microBatches = 0;
        const core::Estimate e = defaultEstimate(&schedule, &chunks, &microBatches);
        ui::TimelineWidget widget;
        widget.resize(1000, 300);
        widget.setPipeline(core::simulatePipeline(core::pipelineInputFor(e, schedule, chunks, microBatches)));
        widget.setTitle(QString("bubble %1 % · step %2")
                            .arg(100 * e.bubbleFraction, 0, 'f', 1)
                            .arg(ui::secondsText(e.stepSeconds)));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const QImage image = widget.grab().toImage();
        QCOMPARE(image.size(), QSize(1000, 300) * widget.devicePixelRatio());
        QVERIFY2(tessera::testing::distinctColours(image) >= 4, "the timeline grabbed blank");
        saveScreenshot(image, "timeline.png");

        // Hover over stage 1's backward of micro-batch 7: the tooltip says what it is.
        const auto& boxes = widget.timelineLayout().boxes();
        const auto it = std::find_if(boxes.begin(), boxes.end(), [](const auto& b) {
            return b.stage == 1 && b.microBatch == 7 && b.phase == core::Phase::Backward;
        });
        QVERIFY(it != boxes.end());
        const QString expected = ui::describe(*it);
        QVERIFY(expected.startsWith("stage 1 · micro-batch 7 · chunk 0 · backward · "));
        QTest::mouseMove(&widget, it->rect.center().toPoint());
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), expected);
    }

    // A title too long to leave the legend room beside it (zb-h2's says where its last
    // stage ends) puts the legend on a line of its own rather than drop it: the lanes
    // start lower, and the legend's swatch colours are painted above them.
    void legendTakesItsOwnLineBesideALongTitle() {
        std::string schedule;
        int chunks = 0, microBatches = 0;
        const core::Estimate e = defaultEstimate(&schedule, &chunks, &microBatches);
        ui::TimelineWidget widget;
        widget.resize(900, 300);
        widget.setPipeline(core::simulatePipeline(core::pipelineInputFor(e, schedule, chunks, microBatches)));
        widget.setTitle("step");
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const double shortTop = widget.timelineLayout().plotRect().top();
        widget.setTitle(QString("a title as long as the widget is wide ").repeated(3));
        const double longTop = widget.timelineLayout().plotRect().top();
        QVERIFY2(longTop > shortTop * 1.4, qPrintable(QString("lanes at %1 px, %2 px with a short title").arg(longTop).arg(shortTop)));
        // The bubble swatch, right-aligned on the legend's line, between the title and the lanes.
        const QImage image = widget.grab().toImage();
        const double ratio = widget.devicePixelRatio();
        bool hatched = false;
        for (int y = int(shortTop * ratio); y < int(longTop * ratio) && !hatched; ++y)
            for (int x = int(image.width() * 0.75); x < image.width() && !hatched; ++x)
                hatched = qGray(image.pixel(x, y)) < 200 && qGray(image.pixel(x, y)) > 60;
        QVERIFY2(hatched, "no legend swatch painted on its own line");
    }

    void widgetZoomsAroundTheCursorAndPans() {
        ui::TimelineWidget widget;
        widget.resize(1000, 300);
        widget.setPipeline(simulate("1f1b", 4, 32, 1));
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        const QPointF at(600, 100);
        const double t = widget.timelineLayout().secondsAt(at.x());
        QWheelEvent wheel(at, widget.mapToGlobal(at), {}, {0, 240}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
        QApplication::sendEvent(&widget, &wheel);
        QVERIFY(std::abs(widget.zoom() - 1.44) < 1e-12);
        QVERIFY(std::abs(widget.timelineLayout().xAt(t) - at.x()) < 1e-6);
        // Drag 100 px to the left: the time grabbed follows the pointer.
        const double grabbed = widget.timelineLayout().secondsAt(500);
        QTest::mousePress(&widget, Qt::LeftButton, {}, QPoint(500, 100));
        QMouseEvent move(QEvent::MouseMove, QPointF(400, 100), widget.mapToGlobal(QPointF(400, 100)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&widget, &move);
        QTest::mouseRelease(&widget, Qt::LeftButton, {}, QPoint(400, 100));
        QVERIFY(std::abs(widget.timelineLayout().xAt(grabbed) - 400) < 1e-6);
        widget.resetView();
        QCOMPARE(widget.zoom(), 1.0);
        QCOMPARE(widget.panSeconds(), 0.0);
    }

    void widgetPaintsALongScheduleCompressed() {
        ui::TimelineWidget widget;
        widget.resize(1000, 360);
        widget.setPipeline(simulate("1f1b", 8, 512, 1));
        QVERIFY(widget.timelineLayout().compressed());
        const QImage image = widget.grab().toImage();
        QVERIFY2(tessera::testing::distinctColours(image) >= 4, "the timeline grabbed blank");
        saveScreenshot(image, "timeline-long.png");
    }
};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
