#include "charts/paretochart.h"

#include <QChart>
#include <QCursor>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "charts/niceaxis.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

namespace {

double gib(core::Bytes b) { return double(b) / double(core::GiB); }

// The kept candidate nearest a point, in axis-normalised distance.
const core::Candidate* nearest(const std::vector<core::Candidate>& all, QPointF p, double xSpan, double ySpan) {
    const core::Candidate* best = nullptr;
    double bestDistance = 1e300;
    for (const core::Candidate& c : all) {
        const double dx = (gib(c.peakMemory) - p.x()) / xSpan, dy = (c.stepSeconds - p.y()) / ySpan;
        if (dx * dx + dy * dy < bestDistance) bestDistance = dx * dx + dy * dy, best = &c;
    }
    return best;
}

}  // namespace

QChart* buildParetoChart(const core::SearchResult& result, core::Bytes memoryLimit, std::optional<CurrentPoint> current,
                         std::function<void(const core::Candidate&)> pick, std::optional<CurrentPoint> baseline) {
    auto* chart = new QChart;
    chart->setTheme(colours::darkPalette() ? QChart::ChartThemeDark : QChart::ChartThemeLight);  // before any series: it recolours them
    chart->setTitle(QObject::tr("Strategies kept by the search: peak memory against step time"));
    chart->setAnimationOptions(QChart::NoAnimation);
    // Every candidate kept: the top list and the front.
    auto kept = std::make_shared<std::vector<core::Candidate>>(result.top);
    for (const core::Candidate& c : result.pareto)
        if (std::none_of(kept->begin(), kept->end(), [&](const auto& k) { return k.index == c.index; })) kept->push_back(c);

    double xMax = gib(memoryLimit), xMin = xMax, yMax = 0, yMin = 1e300;
    auto take = [&](double peakGib, double step) {
        xMax = std::max(xMax, peakGib), xMin = std::min(xMin, peakGib);
        yMax = std::max(yMax, step), yMin = std::min(yMin, step);
    };
    for (const core::Candidate& c : *kept) take(gib(c.peakMemory), c.stepSeconds);
    if (current) take(gib(current->peakMemory), current->stepSeconds);
    if (baseline) take(gib(baseline->peakMemory), baseline->stepSeconds);
    if (kept->empty() && !current) yMin = 0, yMax = 1;
    const double yPad = std::max(1e-3, (yMax - yMin) * 0.08);

    auto* dots = new QScatterSeries(chart);
    dots->setName(QObject::tr("kept strategies"));
    dots->setMarkerSize(8);
    dots->setColor(colours::kGradients);
    dots->setBorderColor(colours::kParameters);
    for (const core::Candidate& c : *kept) dots->append(gib(c.peakMemory), c.stepSeconds);

    auto* front = new QLineSeries(chart);
    front->setName(QObject::tr("Pareto front"));
    front->setObjectName(QStringLiteral("pareto-front"));
    QPen frontPen(colours::kActivations);
    frontPen.setWidth(3);
    front->setPen(frontPen);
    for (const core::Candidate& c : result.pareto) front->append(gib(c.peakMemory), c.stepSeconds);
    front->setPointsVisible(true);

    auto* limit = new QLineSeries(chart);
    limit->setName(QObject::tr("memory limit %1 GiB").arg(gibText(memoryLimit)));
    QPen limitPen(colours::kOverLimit);
    limitPen.setWidth(2);
    limitPen.setStyle(Qt::DashLine);
    limit->setPen(limitPen);

    chart->addSeries(limit);
    chart->addSeries(dots);
    chart->addSeries(front);
    if (current) {
        auto* ring = new QScatterSeries(chart);
        ring->setName(QObject::tr("current strategy"));
        ring->setObjectName(QStringLiteral("current"));
        ring->setMarkerSize(18);
        ring->setColor(Qt::transparent);
        ring->setBorderColor(colours::ink());
        ring->setPen(QPen(colours::ink(), 2.5));
        ring->append(gib(current->peakMemory), current->stepSeconds);
        chart->addSeries(ring);
        // The legend's marker in ink too (Qt draws it in the theme's dark outline, lost on a dark palette).
        for (QLegendMarker* marker : chart->legend()->markers(ring)) marker->setPen(QPen(colours::ink(), 2));
    }
    if (baseline) {
        auto* square = new QScatterSeries(chart);
        square->setName(QObject::tr("pinned baseline"));
        square->setObjectName(QStringLiteral("baseline"));
        square->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        square->setMarkerSize(14);
        square->setColor(Qt::transparent);
        square->setPen(QPen(colours::ink(), 2));
        square->append(gib(baseline->peakMemory), baseline->stepSeconds);
        chart->addSeries(square);
    }
    auto* x = new QValueAxis(chart);
    x->setTitleText(QObject::tr("peak memory per device (GiB)"));
    // From zero while the points spread over more than half of it; else from just below
    // the lightest, so that a front kept within a few GiB of the limit is not squeezed
    // into a sliver (the limit stays in view either way). Round ticks a reader can count.
    const bool fromZero = xMin < 0.5 * xMax;
    const double xStep = fromZero ? (xMax > 300 ? 50 : xMax > 120 ? 20 : 10) : niceStep(std::max(0.1, (xMax - xMin) / 6));
    // Half a tick at least either side, so that points all at one peak still get an axis.
    const double xPad = fromZero ? 0.05 * xMax : std::max(0.05 * (xMax - xMin), 0.5 * xStep);
    const double xFrom = fromZero ? 0 : std::floor((xMin - xPad) / xStep) * xStep;
    x->setRange(std::max(0.0, xFrom), std::ceil((xMax + xPad) / xStep) * xStep);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(xStep);
    x->setLabelFormat(xStep < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
    auto* y = new QValueAxis(chart);
    y->setTitleText(QObject::tr("step time (s)"));
    y->setRange(std::max(0.0, yMin - yPad), yMax + yPad);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.1f"));
    limit->append(gib(memoryLimit), y->min());  // the limit spans the whole plot
    limit->append(gib(memoryLimit), y->max());
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) s->attachAxis(x), s->attachAxis(y);
    chart->legend()->setAlignment(Qt::AlignBottom);

    const double xSpan = std::max(1.0, x->max() - x->min()), ySpan = std::max(1e-9, y->max() - y->min());
    auto describe = [kept, xSpan, ySpan](const QPointF& p, bool on) {
        if (!on) return QToolTip::hideText();
        if (const core::Candidate* c = nearest(*kept, p, xSpan, ySpan))
            QToolTip::showText(QCursor::pos(), QObject::tr("%1\n%2 GiB · %3")
                                                   .arg(qs(c->label()), gibText(c->peakMemory), secondsText(c->stepSeconds)));
    };
    QObject::connect(dots, &QScatterSeries::hovered, chart, describe);
    QObject::connect(front, &QLineSeries::hovered, chart, describe);
    auto clicked = [kept, xSpan, ySpan, pick](const QPointF& p) {
        if (const core::Candidate* c = nearest(*kept, p, xSpan, ySpan); c && pick) pick(*c);
    };
    QObject::connect(dots, &QScatterSeries::clicked, chart, clicked);
    QObject::connect(front, &QLineSeries::clicked, chart, clicked);
    return chart;
}

void numberFrontPoints(QChart* chart, const core::SearchResult& result) {
    QAbstractSeries* front = nullptr;
    for (QAbstractSeries* s : chart->series())
        if (s->objectName() == QStringLiteral("pareto-front")) front = s;
    if (!front) return;
    QFont font = chart->font();
    font.setBold(true);
    // What a number must not cover: every front point and the marks of the current
    // strategy and the baseline (a box a marker wide around each), and the numbers
    // already placed. Each number takes the first free place of a ring of eight around
    // its point, nearest first; crowded points (a knee of the front) get a farther ring
    // and a thin leader line to their point.
    std::vector<QRectF> taken;
    const double marker = 12;
    auto around = [&](QPointF p) { return QRectF(p - QPointF(marker / 2, marker / 2), QSizeF(marker, marker)); };
    for (QAbstractSeries* s : chart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(s);
        if (!xy || (s != front && s->objectName() != QLatin1String("current") && s->objectName() != QLatin1String("baseline")))
            continue;
        for (const QPointF& p : xy->points()) taken.push_back(around(chart->mapToPosition(p, s)));
    }
    const QRectF plot = chart->plotArea();
    for (std::size_t i = 0; i < result.pareto.size(); ++i) {
        const core::Candidate& c = result.pareto[i];
        const QPointF at = chart->mapToPosition(QPointF(gib(c.peakMemory), c.stepSeconds), front);
        auto* label = new QGraphicsSimpleTextItem(QString::number(i + 1), chart);
        label->setFont(font);
        label->setBrush(colours::ink());
        const QSizeF size = label->boundingRect().size();
        QRectF chosen;
        bool found = false, far = false;
        // The nearest ring hugs the point: its diagonal places meet the point's own marker,
        // so beside it (east, west) is where a number usually lands.
        for (const double reach : {4.0, 14.0, 26.0}) {
            // Up-right first (where the front's numbers read naturally), then around.
            const QPointF offsets[] = {{reach, -reach - size.height()}, {reach, reach},
                                       {-reach - size.width(), -reach - size.height()}, {-reach - size.width(), reach},
                                       {reach + 2, -size.height() / 2}, {-reach - 2 - size.width(), -size.height() / 2},
                                       {-size.width() / 2, -reach - 2 - size.height()}, {-size.width() / 2, reach + 2}};
            for (const QPointF& o : offsets) {
                const QRectF box(at + o, size);
                if (!plot.contains(box)) continue;
                if (std::any_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(box); })) continue;
                chosen = box, found = true, far = reach > 4;
                break;
            }
            if (found) break;
        }
        if (!found) chosen = QRectF(at + QPointF(4, -4 - size.height()), size);  // nowhere free: the usual place
        label->setPos(chosen.topLeft());
        taken.push_back(chosen);
        if (far) {  // a leader from the number's nearest corner to its point
            const QPointF corner(std::clamp(at.x(), chosen.left(), chosen.right()), std::clamp(at.y(), chosen.top(), chosen.bottom()));
            auto* leader = new QGraphicsLineItem(QLineF(corner, at), chart);
            QPen pen(colours::ink());
            pen.setWidthF(0.6);
            leader->setPen(pen);
        }
    }
}

}  // namespace tessera::ui
