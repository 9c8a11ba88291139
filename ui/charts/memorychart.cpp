#include <algorithm>
#include "charts/memorychart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

namespace {

double gib(core::Bytes b) { return double(b) / double(core::GiB); }

}  // namespace

QChart* buildMemoryChart(const core::Estimate& e, const core::Estimate* baseline, const QString& baselineName) {
    auto* chart = new QChart;
    chart->setTheme(colours::darkPalette() ? QChart::ChartThemeDark : QChart::ChartThemeLight);  // before any series: it recolours them
    // dualpipe: a bar is a device holding stage s and the mirrored stage p-1-s
    const bool mirrored = !e.stages.empty() && e.stages.front().hasMirror;
    chart->setTitle(mirrored ? QObject::tr("Memory per device, each with its stage and the mirrored one (GiB = 2^30 bytes)")
                             : QObject::tr("Memory per device by pipeline stage (GiB = 2^30 bytes)"));
    chart->setAnimationOptions(QChart::NoAnimation);
    auto* series = new QStackedBarSeries(chart);
    double top = gib(e.deviceMemory);
    for (std::size_t term = 0; term < std::size(core::kMemoryTerms); ++term) {
        const core::Bytes core::StageMemory::*field = core::kMemoryTerms[term].bytes;
        const QString name = QObject::tr(core::kMemoryTerms[term].name);
        auto* set = new QBarSet(name, series);
        const QColor colour = colours::termColour(term);
        set->setColor(colour);
        set->setBorderColor(colour.darker(130));
        for (const core::StageEstimate& s : e.stages) set->append(gib(s.memory.*field));
        // Exact bytes on hover: colour is never the only carrier of a number.
        QObject::connect(set, &QBarSet::hovered, chart, [e, field, name](bool on, int index) {
            if (!on || index < 0 || index >= int(e.stages.size())) return QToolTip::hideText();
            const core::StageEstimate& s = e.stages[std::size_t(index)];
            const core::Bytes b = s.memory.*field;
            QToolTip::showText(QCursor::pos(), (s.hasMirror ? QObject::tr("Device %1 · %2: %3 GiB (%4 bytes)\nDevice total %5 GiB")
                                                            : QObject::tr("Stage %1 · %2: %3 GiB (%4 bytes)\nStage total %5 GiB"))
                                                   .arg(s.stage).arg(name, gibText(b, 2))
                                                   .arg(QLocale().toString(qlonglong(b)))
                                                   .arg(gibText(s.memory.total())));
        });
        series->append(set);
    }
    series->setBarWidth(0.6);
    chart->addSeries(series);

    QStringList categories;
    for (const core::StageEstimate& s : e.stages) {
        top = std::max(top, gib(s.memory.total()));
        categories << (s.memory.total() > e.deviceMemory ? QObject::tr("%1 ▲").arg(s.stage) : QString::number(s.stage));
    }
    auto* x = new QBarCategoryAxis(chart);
    x->append(categories);
    // Short enough not to be elided at 1280 wide; the ▲ is explained only when a stage
    // carries one (the red outline has its own legend entry).
    const bool anyOver = std::any_of(e.stages.begin(), e.stages.end(),
                                     [&](const core::StageEstimate& s) { return s.memory.total() > e.deviceMemory; });
    // Many stages leave a category too narrow for "12" side by side: Qt would elide it
    // to "...", so the labels stand upright instead - and are drawn whole, since Qt also
    // elides an upright label to "⋮" when the chart is as narrow as the window's (pp 16
    // at 1280 x 800).
    if (e.stages.size() > 10) x->setLabelsAngle(-90);
    x->setTruncateLabels(false);
    x->setTitleText((mirrored ? QObject::tr("device (stages s and p-1-s)") : QObject::tr("pipeline stage")) +
                    (anyOver ? QObject::tr(" · ▲ over the device's memory") : QString()));
    auto* y = new QValueAxis(chart);
    // Round ticks a reader can count: 10, 20 or 50 GiB apart.
    const double step = top > 300 ? 50 : top > 120 ? 20 : 10;
    y->setRange(0, std::ceil(top * 1.08 / step) * step);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(step);
    y->setTitleText(QObject::tr("GiB per device"));
    y->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);

    // The device's memory, as a labelled line across every stage.
    auto* limit = new QLineSeries(chart);
    limit->setName(QObject::tr("device memory %1 GiB").arg(gibText(e.deviceMemory)));
    limit->append(-0.5, gib(e.deviceMemory));
    limit->append(double(e.stages.size()) - 0.5, gib(e.deviceMemory));
    QPen pen(colours::kOverLimit);
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    limit->setPen(pen);
    chart->addSeries(limit);
    limit->attachAxis(x);
    limit->attachAxis(y);
    // A stage over the limit: a red outline around its bar (and "over" under it), not red fill alone.
    bool named = false;
    for (std::size_t i = 0; i < e.stages.size(); ++i) {
        if (e.stages[i].memory.total() <= e.deviceMemory) continue;
        auto* over = new QLineSeries(chart);
        over->setName(QObject::tr("over the device's memory"));
        QPen overPen(colours::kOverLimit);
        overPen.setWidth(3);
        over->setPen(overPen);
        const double x0 = double(i) - 0.32, x1 = double(i) + 0.32, t = gib(e.stages[i].memory.total());
        over->append(x0, 0), over->append(x0, t), over->append(x1, t), over->append(x1, 0), over->append(x0, 0);
        chart->addSeries(over);
        over->attachAxis(x);
        over->attachAxis(y);
        if (named) chart->legend()->markers(over).first()->setVisible(false);  // one legend entry for all
        named = true;
    }
    if (baseline) {
        // The baseline as an outline: a box around where each stage's bar stood.
        auto* outline = new QLineSeries(chart);
        outline->setName(baselineName.isEmpty() ? QObject::tr("pinned baseline (outline)") : baselineName + QObject::tr(" (outline)"));
        QPen pen(colours::ink());
        pen.setWidth(2);
        outline->setPen(pen);
        for (std::size_t i = 0; i < baseline->stages.size() && i < e.stages.size(); ++i) {
            const double x = double(i), t = gib(baseline->stages[i].memory.total());
            top = std::max(top, t);
            outline->append(x - 0.34, 0), outline->append(x - 0.34, t), outline->append(x + 0.34, t), outline->append(x + 0.34, 0);
        }
        chart->addSeries(outline);
        outline->attachAxis(x);
        outline->attachAxis(y);
        y->setRange(0, std::max(y->max(), std::ceil(top * 1.08 / 10) * 10));
    }
    chart->legend()->setAlignment(Qt::AlignRight);  // one term a line: never elided, whatever the width
    return chart;
}

}  // namespace tessera::ui
