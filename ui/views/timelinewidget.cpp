#include "views/timelinewidget.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

namespace tessera::ui {

namespace {

// UI.md's colours, one meaning each and the same in both themes (Okabe–Ito).
const QColor kForward(0x00, 0x72, 0xB2);
const QColor kBackward(0x00, 0x9E, 0x73);
// Communication in the lane under the boxes: the Step chart's exposed-comm colour
// (colours::kBuffers), and the same hue light for what compute hides.
const QColor kCommExposed(0xCC, 0x79, 0xA7);
const QColor kCommHidden(0xEB, 0xC9, 0xDC);
// Teal darker than both: it differs from the green in lightness as well as hue,
// so the two stay apart under deuteranopia and protanopia (Machado et al. 2009's
// simulation puts them 29 and 33 CIELAB units apart; #00A0A0 would be 23).
const QColor kWeightGrad(0x00, 0x5A, 0x5A);
constexpr double kMaxZoom = 1e5;

QColor phaseColour(core::Phase phase) {
    switch (phase) {
    case core::Phase::Forward: return kForward;
    case core::Phase::Backward: return kBackward;
    case core::Phase::WeightGrad: return kWeightGrad;
    }
    return kForward;
}

QColor mix(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// Black or white, whichever contrasts more with the fill (WCAG relative luminance;
// the two are equal at 0.179).
QColor textOn(const QColor& fill) {
    auto lin = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * lin(fill.redF()) + 0.7152 * lin(fill.greenF()) + 0.0722 * lin(fill.blueF());
    return l > 0.179 ? Qt::black : Qt::white;
}

// Grey from the palette, so the bubble reads as "nothing" on light and dark alike.
QBrush bubbleBase(const QPalette& pal) {
    return mix(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.10);
}
QBrush bubbleHatch(const QPalette& pal) {
    return QBrush(mix(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.45), Qt::BDiagPattern);
}

// A steady-state band: thin stripes of the phases inside, so it still reads as work
// of those kinds, just too dense to draw one by one.
QBrush bandBrush(const TimelineBand& band) {
    std::vector<QColor> colours;
    if (band.forward) colours.push_back(kForward);
    if (band.backward) colours.push_back(kBackward);
    if (band.weightGrad) colours.push_back(kWeightGrad);
    QImage stripes(int(colours.size()) * 3, 1, QImage::Format_RGB32);
    for (int x = 0; x < stripes.width(); ++x) stripes.setPixelColor(x, 0, colours[std::size_t(x / 3)]);
    return QBrush(stripes);
}

struct LegendEntry {
    QString text;
    QBrush brush, hatch;
};

// The legend: every mark the lanes can hold, bubble included.
std::vector<LegendEntry> legendEntries(const core::PipelineResult& result, const bool (&phases)[3], const QPalette& pal) {
    std::vector<LegendEntry> entries;
    for (int p = 0; p < 3; ++p)
        if (phases[p]) entries.push_back({phaseName(core::Phase(p)), phaseColour(core::Phase(p)), Qt::NoBrush});
    const auto& events = result.events;
    if (std::any_of(events.begin(), events.end(), [](const core::PipelineEvent& e) { return e.paired; })) {
        // DualPipe's F&B: drawn as the lane's top half forward over its bottom half backward.
        QLinearGradient split(0, 0, 0, 1);
        split.setCoordinateMode(QGradient::ObjectMode);
        split.setColorAt(0, kForward), split.setColorAt(0.5, kForward);
        split.setColorAt(0.5001, kBackward), split.setColorAt(1, kBackward);
        entries.push_back({TimelineWidget::tr("F&B pair (overlapped)"), QBrush(split), Qt::NoBrush});
    }
    if (std::any_of(events.begin(), events.end(), [](const core::PipelineEvent& e) { return e.commExposed > 0; }))
        entries.push_back({TimelineWidget::tr("comm. exposed"), QBrush(kCommExposed), Qt::NoBrush});
    if (std::any_of(events.begin(), events.end(), [](const core::PipelineEvent& e) { return e.commHidden > 0; }))
        entries.push_back({TimelineWidget::tr("comm. hidden"), QBrush(kCommHidden), Qt::NoBrush});
    entries.push_back({TimelineWidget::tr("bubble (idle)"), bubbleBase(pal), bubbleHatch(pal)});
    return entries;
}

double legendWidth(const std::vector<LegendEntry>& entries, const QFontMetricsF& fm) {
    const double swatch = std::round(fm.height() * 0.8), gap = std::round(fm.height());
    double width = 0;
    for (const LegendEntry& e : entries) width += swatch + 4 + fm.horizontalAdvance(e.text) + gap;
    return width - gap;
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);  // hover tooltips without a button held
    setCursor(Qt::OpenHandCursor);
}

void TimelineWidget::setPipeline(core::PipelineResult result) {
    m_result = std::move(result);
    std::fill(std::begin(m_phases), std::end(m_phases), false);
    for (const core::PipelineEvent& e : m_result.events) m_phases[int(e.phase)] = true;
    setView(m_zoom, m_pan);
}

void TimelineWidget::setTitle(const QString& title) {
    m_title = title;
    relayout();  // a title too long for the legend beside it gives the legend its own line
}

QString TimelineWidget::title() const {
    if (!m_title.isEmpty()) return m_title;
    return tr("bubble %1 % · pipeline %2")
        .arg(100 * m_result.bubbleFraction, 0, 'f', 1)
        .arg(secondsText(m_result.makespan));
}

void TimelineWidget::setView(double zoom, double panSeconds) {
    m_zoom = std::clamp(zoom, 1.0, kMaxZoom);
    m_layout.reset();
    m_pan = timelineLayout().clampPan(panSeconds);
    relayout();
}

void TimelineWidget::zoomAround(double x, double factor) {
    const double seconds = timelineLayout().secondsAt(x);
    m_zoom = std::clamp(m_zoom * factor, 1.0, kMaxZoom);
    m_layout.reset();
    m_pan = timelineLayout().clampPan(timelineLayout().panKeeping(seconds, x));
    relayout();
}

const TimelineLayout& TimelineWidget::timelineLayout() const {
    if (!m_layout) m_layout.emplace(m_result, QSizeF(size()), m_zoom, m_pan, metrics());
    return *m_layout;
}

int TimelineWidget::naturalHeight() const {
    const TimelineMetrics m = metrics();
    const double lanes = double(std::max<std::size_t>(1, m_result.busy.size())) * kTimelineMaxPitch;
    return int(std::ceil(m.titleHeight + m.axisHeight + lanes)) + 1;
}

TimelineMetrics TimelineWidget::metrics() const {
    const QFontMetricsF fm(font());
    TimelineMetrics m;
    m.textHeight = fm.height();
    m.digitWidth = fm.horizontalAdvance(QLatin1Char('0'));
    m.titleHeight = std::ceil(fm.height() * 2.2);
    // The title and the legend side by side, or the legend on a line of its own.
    QFont bold = font();
    bold.setBold(true);
    const double side = 8 + QFontMetricsF(bold).horizontalAdvance(title()) + 2 * std::round(fm.height()) +
                        legendWidth(legendEntries(m_result, m_phases, palette()), fm);
    if (side > double(width()) - 8) m.titleHeight = std::ceil(fm.height() * 3.4);
    m.axisHeight = std::ceil(fm.height() + 10);
    const int lastStage = std::max(0, int(m_result.busy.size()) - 1);
    m.labelWidth = std::ceil(fm.horizontalAdvance(tr("stage %1").arg(lastStage)) + 20);
    return m;
}

void TimelineWidget::relayout() {
    m_layout.reset();
    update();
}

bool TimelineWidget::event(QEvent* event) {
    switch (event->type()) {
    case QEvent::ToolTip:  // the delayed hover Qt sends when the pointer rests
        showHover(static_cast<QHelpEvent*>(event)->pos(), static_cast<QHelpEvent*>(event)->globalPos());
        return true;
    case QEvent::FontChange:
    case QEvent::StyleChange: relayout(); break;
    default: break;
    }
    return QWidget::event(event);
}

void TimelineWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    setView(m_zoom, m_pan);  // the same zoom fits the whole step in the new width
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
    // 1.2x per notch; high-resolution wheels and touchpads send fractions of one.
    zoomAround(event->position().x(), std::pow(1.2, event->angleDelta().y() / 120.0));
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    m_dragSeconds = timelineLayout().secondsAt(event->position().x());
    setCursor(Qt::ClosedHandCursor);
    QToolTip::hideText();
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragSeconds) {
        m_pan = timelineLayout().clampPan(timelineLayout().panKeeping(*m_dragSeconds, event->position().x()));
        relayout();
        return;
    }
    showHover(event->position(), event->globalPosition().toPoint());  // at once, not after a rest
}

// The rectangle hides the tip when the pointer leaves what it describes.
void TimelineWidget::showHover(QPointF at, QPoint global) {
    QRectF item;
    const QString text = timelineLayout().hoverText(at, &item);
    if (text.isEmpty()) return QToolTip::hideText();
    QToolTip::showText(global, text, this, item.toAlignedRect());
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mouseReleaseEvent(event);
    m_dragSeconds.reset();
    setCursor(Qt::OpenHandCursor);
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent*) { resetView(); }

void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_result.events.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No pipeline schedule to show"));
        return;
    }
    const TimelineLayout& layout = timelineLayout();
    paintTitle(painter, layout);
    paintLanes(painter, layout);
    paintAxis(painter, layout);
}

void TimelineWidget::paintTitle(QPainter& painter, const TimelineLayout& layout) const {
    const QFontMetricsF fm(font());
    // metrics() gave the legend a line of its own when the title leaves it no room.
    const bool ownLine = layout.plotRect().top() > fm.height() * 3;
    const double baseline = std::round(ownLine ? fm.height() * 0.6 + fm.ascent() / 2 : layout.plotRect().top() / 2 + fm.ascent() / 2);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::WindowText));
    const QString heading = title();
    painter.drawText(QPointF(8, baseline), heading);
    const double headingRight = 8 + QFontMetricsF(bold).horizontalAdvance(heading);
    painter.setFont(font());

    // The legend, right-aligned beside the title or on its own line under it.
    const std::vector<LegendEntry> entries = legendEntries(m_result, m_phases, palette());
    const double swatch = std::round(fm.height() * 0.8), gap = std::round(fm.height());
    double x = layout.plotRect().right() - legendWidth(entries, fm);
    const double line = ownLine ? std::round(baseline + fm.height() * 1.3) : baseline;
    if (!ownLine && x < headingRight + 2 * gap) return;  // (metrics() saw it fit; a resize is on its way)
    for (const LegendEntry& e : entries) {
        const QRectF box(x, line - fm.ascent() + (fm.ascent() - swatch) / 2 + 1, swatch, swatch);
        painter.fillRect(box, e.brush);
        painter.fillRect(box, e.hatch);
        painter.drawText(QPointF(box.right() + 4, line), e.text);
        x = box.right() + 4 + fm.horizontalAdvance(e.text) + gap;
    }
}

void TimelineWidget::paintLanes(QPainter& painter, const TimelineLayout& layout) const {
    const QFontMetricsF fm(font());
    const QPalette& pal = palette();
    painter.setPen(pal.color(QPalette::WindowText));
    // Lane labels; on a crowded tall pipeline only every k-th, so they never overlap.
    const double pitch = layout.stages() > 1 ? layout.laneRect(1).top() - layout.laneRect(0).top() : fm.height();
    const int every = std::max(1, int(std::ceil(fm.height() / pitch)));
    for (int s = 0; s < layout.stages(); s += every) {
        const QRectF lane = layout.laneRect(s);
        const QRectF label(0, lane.center().y() - fm.height() / 2, layout.plotRect().left() - 10, fm.height());
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, tr("stage %1").arg(s));
    }

    painter.save();
    painter.setClipRect(layout.plotRect().adjusted(0, -1, 1, 1));
    painter.setBrushOrigin(0, 0);  // hatching lines up from one bubble to the next
    for (const TimelineBubble& b : layout.bubbles()) {
        painter.fillRect(b.rect, bubbleBase(pal));
        painter.fillRect(b.rect, bubbleHatch(pal));
    }
    for (const TimelineBox& b : layout.boxes()) {
        const QColor colour = phaseColour(b.phase);
        // A hairline of background between neighbours, so a run of forwards stays countable.
        painter.fillRect(b.rect.width() >= 4 ? b.rect.adjusted(0, 0, -1, 0) : b.rect, colour);
        // Centred on the part on screen, so a box cut by the edge keeps a whole number.
        const QString number = b.label();
        const QRectF shown = b.rect.intersected(layout.plotRect());
        if (b.labelFits && shown.width() >= fm.horizontalAdvance(number) + 4) {
            painter.setPen(textOn(colour));
            painter.drawText(shown, Qt::AlignCenter, number);
        }
        // The lane under it: what the box waits for, solid, then what runs beside its
        // compute, light; each as its share of the box's span.
        if (!b.commRect.isEmpty() && b.end > b.start) {
            const double perSecond = b.commRect.width() / (b.end - b.start);
            const double exposed = std::min(b.commRect.width(), b.commExposed * perSecond);
            const double hidden = std::min(b.commRect.width() - exposed, b.commHidden * perSecond);
            painter.fillRect(QRectF(b.commRect.left(), b.commRect.top(), exposed, b.commRect.height()), kCommExposed);
            painter.fillRect(QRectF(b.commRect.left() + exposed, b.commRect.top(), hidden, b.commRect.height()), kCommHidden);
        }
    }
    // Band labels: the longest wording that fits every band on screen in full, so
    // that they read alike; one cut off by the edge steps down further if it must.
    auto wordings = [](const TimelineBand& b) {
        const QString count = QLocale().toString(b.microBatches);
        return std::array<QString, 3>{bandLabel(b), tr("%1 micro-batches").arg(count), count};
    };
    auto fits = [&](const QString& text, const QRectF& room) {
        return fm.horizontalAdvance(text) + 16 <= room.width();
    };
    std::size_t common = 0;
    for (const TimelineBand& b : layout.bands())
        while (layout.plotRect().contains(b.rect) && common < 3 && !fits(wordings(b)[common], b.rect)) ++common;
    for (const TimelineBand& b : layout.bands()) {
        painter.fillRect(b.rect, bandBrush(b));
        const QRectF shown = b.rect.intersected(layout.plotRect());
        std::size_t wording = common;
        while (wording < 3 && !fits(wordings(b)[wording], shown)) ++wording;
        if (wording == 3 || shown.height() < fm.height()) continue;
        // On a pill of background colour: stripes behind text would not read.
        const QString text = wordings(b)[wording];
        const QSizeF size(fm.horizontalAdvance(text) + 12, std::min(shown.height() - 4, fm.height() + 4));
        const QRectF pill(shown.center() - QPointF(size.width() / 2, size.height() / 2), size);
        painter.setPen(Qt::NoPen);
        painter.setBrush(pal.color(QPalette::Window));
        painter.setRenderHint(QPainter::Antialiasing);
        painter.drawRoundedRect(pill, 4, 4);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setPen(pal.color(QPalette::WindowText));
        painter.drawText(pill, Qt::AlignCenter, text);
    }
    painter.restore();
}

void TimelineWidget::paintAxis(QPainter& painter, const TimelineLayout& layout) const {
    if (layout.stages() == 0) return;
    const QFontMetricsF fm(font());
    const QRectF plot = layout.plotRect();
    const double y = std::round(layout.laneRect(layout.stages() - 1).bottom() + 4) + 0.5;
    const QColor line = mix(palette().color(QPalette::Window), palette().color(QPalette::WindowText), 0.5);
    painter.setPen(line);
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    // A squeezed steady state has no uniform time: its stretch of axis is dotted
    // and says how much time it stands for.
    for (const TimelineAxis::Piece& piece : layout.axis().pieces()) {
        if (!piece.squeezed) continue;
        const double from = std::max(plot.left(), layout.xAt(piece.start)),
                     to = std::min(plot.right(), layout.xAt(piece.end));
        painter.setPen(QPen(palette().color(QPalette::Window), 1));
        for (double x = from; x < to; x += 4) painter.drawLine(QPointF(x, y), QPointF(x + 2, y));
        const QString text = QStringLiteral("⋯ %1 ⋯").arg(secondsText(piece.end - piece.start));
        if (fm.horizontalAdvance(text) + 8 > to - from) continue;
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRectF(from, y + 5, to - from, fm.height()), Qt::AlignHCenter | Qt::AlignTop, text);
    }
    for (const TimelineTick& tick : layout.ticks()) {
        painter.setPen(line);
        painter.drawLine(QPointF(tick.x, y), QPointF(tick.x, y + 4));
        painter.setPen(palette().color(QPalette::WindowText));
        const double w = fm.horizontalAdvance(tick.text);
        const double left = std::min(std::max(tick.x - w / 2, plot.left() - w / 2), width() - w - 2);  // in the widget
        painter.drawText(QPointF(left, y + 5 + fm.ascent()), tick.text);
    }
}

}  // namespace tessera::ui
