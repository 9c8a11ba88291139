#include "charts/stepchart.h"

#include <QBarCategoryAxis>
#include <QFontInfo>
#include <QFontMetrics>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QHorizontalStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <vector>

#include "charts/niceaxis.h"
#include "model/slowestdevice.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

namespace {


QString signedSeconds(double d) {
    if (std::abs(d) < 5e-4) return QStringLiteral("±0");  // rounding noise, not a change
    return (d >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + secondsText(std::abs(d));
}

// One stage's step in the breakdown's terms: its busy time per micro-batch times the
// micro-batches, its share of the data-parallel tail and optimizer, idle for the rest.
// Under dualpipe a row is a device: half the micro-batches through its own stage, half
// through the mirrored one. What F&B pairs hid (dualpipe, dualpipev) is not exposed.
core::TimeBreakdown stageBreakdown(const core::Estimate& e, const core::StageEstimate& s, std::int64_t microBatches) {
    core::TimeBreakdown b;
    auto add = [&](const core::StageTime& t, double m) {
        b.recompute += m * t.recompute;
        b.communicationExposed += m * t.communication + t.dpExposed;
        b.compute += m * (t.forward + t.backward + t.weightGrad - t.communication);
        b.optimizer += t.optimizer;
    };
    if (s.hasMirror) add(s.time, double(microBatches) / 2), add(s.mirror, double(microBatches) / 2);
    else add(s.time, double(microBatches));
    b.communicationExposed = std::max(0.0, b.communicationExposed - s.hiddenBySchedule);  // dualpipe(v)'s pairs
    b.bubble = std::max(0.0, e.stepSeconds - b.compute - b.recompute - b.communicationExposed - b.optimizer);
    return b;
}

}  // namespace

QChart* buildStepChart(const core::Estimate& e, std::int64_t microBatches, const core::Estimate* baseline) {
    auto* chart = new QChart;
    chart->setTheme(colours::darkPalette() ? QChart::ChartThemeDark : QChart::ChartThemeLight);  // before the series
    chart->setAnimationOptions(QChart::NoAnimation);
    QString title = QObject::tr("Where the step goes: %1").arg(secondsText(e.stepSeconds));
    if (baseline)
        title += QObject::tr(" (baseline %1, %2)").arg(secondsText(baseline->stepSeconds), signedSeconds(e.stepSeconds - baseline->stepSeconds));
    chart->setTitle(title);
    // One colour per meaning (UI.md): work in the backward box's green, recompute in
    // hatched orange, communication in the buffers' purple, idle in hatched grey, the
    // optimizer step in the master copy's yellow (what it updates).
    const struct {
        const char* name;
        double core::TimeBreakdown::*term;
        QBrush brush;
    } terms[] = {{"compute", &core::TimeBreakdown::compute, QBrush(colours::kOptimizerStates)},
                 {"recompute", &core::TimeBreakdown::recompute, QBrush(colours::kWorking, Qt::BDiagPattern)},
                 {"exposed comm.", &core::TimeBreakdown::communicationExposed, QBrush(colours::kBuffers)},
                 {"bubble", &core::TimeBreakdown::bubble, QBrush(QColor(150, 150, 150), Qt::BDiagPattern)},
                 {"optimizer", &core::TimeBreakdown::optimizer, QBrush(colours::kMasterCopy)}};
    auto* series = new QHorizontalStackedBarSeries(chart);
    // Rows bottom-up: the stages (stage 0 on top), the baseline, the strategy shown.
    std::vector<core::TimeBreakdown> stageRows;
    QStringList rows;
    if (stepChartShowsStages(e)) {
        for (auto s = e.stages.rbegin(); s != e.stages.rend(); ++s) {
            stageRows.push_back(stageBreakdown(e, *s, microBatches));
            rows << (s->hasMirror ? QObject::tr("device %1") : QObject::tr("stage %1")).arg(s->stage);  // dualpipe: a device of two stages
        }
    }
    if (baseline) rows << QObject::tr("baseline step");
    rows << QObject::tr("step");
    for (const auto& t : terms) {
        const double now = e.breakdown.*t.term;
        QString label = QObject::tr("%1 %2").arg(QObject::tr(t.name), secondsText(now));
        if (baseline) label += QStringLiteral(" (%1)").arg(signedSeconds(now - baseline->breakdown.*t.term));
        // The slowest device's wait is inside compute and recompute (cluster.rank_speed_spread).
        const bool kernels = t.term == &core::TimeBreakdown::compute || t.term == &core::TimeBreakdown::recompute;
        if (kernels && e.slowestDeviceFactor > 1 && now > 0)
            label += QObject::tr(" (%1 slowest-device wait)").arg(secondsText(core::slowestDeviceWait(now, e.slowestDeviceFactor)));
        auto* set = new QBarSet(label, series);
        set->setBrush(t.brush);
        set->setBorderColor(t.brush.color().darker(130));
        for (const core::TimeBreakdown& b : stageRows) set->append(b.*t.term);
        if (baseline) set->append(baseline->breakdown.*t.term);
        set->append(now);
        const QString name = QObject::tr(t.name);
        QObject::connect(set, &QBarSet::hovered, chart, [set, name, rows](bool on, int index) {
            if (!on) return QToolTip::hideText();
            QToolTip::showText(QCursor::pos(), QObject::tr("%1, %2: %3").arg(rows.value(index), name, secondsText(set->at(index))));
        });
        series->append(set);
    }
    series->setBarWidth(0.7);
    chart->addSeries(series);
    auto* categories = new QBarCategoryAxis(chart);
    categories->append(rows);
    // Qt elides a row's label to "..." once its line is taller than the row less padding: at
    // 1280 x 800 nine rows (pp 8) did. Each layout sizes the labels to their rows, down to 7 px.
    const QFont base = categories->labelsFont();
    QObject::connect(chart, &QChart::plotAreaChanged, categories, [categories, base, n = rows.size()](const QRectF& area) {
        // A line fits its row (the Pipeline view gives each row 15 px: stepChartMinimumHeight),
        // drawn whole, not truncated, since Qt's padding would elide even a 7 px line.
        // Qt hides a label whose box (the line and ~3 px of padding) overlaps the one before.
        const double room = area.height() / double(std::max<qsizetype>(1, n)) - 4;
        QFont font = base;
        for (int px = QFontInfo(base).pixelSize(); px > 7 && QFontMetrics(font).height() > room; --px) font.setPixelSize(px - 1);
        if (font != categories->labelsFont()) categories->setLabelsFont(font);
    });
    categories->setTruncateLabels(false);
    chart->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(categories);
    auto* time = new QValueAxis(chart);
    time->setTitleText(QObject::tr("seconds per step"));
    // Four to eight round ticks, the axis ending at the first one past the longest bar (Qt's
    // applyNiceNumbers took a 9.9 s step to 15 s, a third of the chart empty).
    const double longest = std::max(e.stepSeconds, baseline ? baseline->stepSeconds : 0.0) * 1.02;
    const double step = niceStep(std::max(longest, 1e-9) / 8);
    time->setRange(0, std::ceil(longest / step) * step);
    time->setTickType(QValueAxis::TicksDynamic);
    time->setTickAnchor(0);
    time->setTickInterval(step);
    time->setLabelFormat(QString::fromLatin1(step >= 1 ? "%.0f" : step >= 0.1 ? "%.1f" : step >= 0.01 ? "%.2f" : "%.3g"));
    chart->addAxis(time, Qt::AlignBottom);
    series->attachAxis(time);
    chart->legend()->setAlignment(Qt::AlignRight);  // a column: each term's figures in full
    return chart;
}

}  // namespace tessera::ui
