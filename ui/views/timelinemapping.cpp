#include "views/timelinemapping.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "charts/niceaxis.h"
#include "model/estimate.h"

namespace tessera::ui {

namespace {

constexpr double kMinBoxPx = 2;        // narrower than this a box is noise, and the steady state becomes a band
constexpr double kSteadyShare = 0.3;   // of the plot one squeezed steady state takes (its label fits in 1000 px)
constexpr double kMinStretch = 0.1;    // a stretch shorter than this share of the makespan is not worth a band
constexpr double kTickSpacingPx = 90;  // between time labels

QString tr(const char* text) { return QCoreApplication::translate("tessera::ui::Timeline", text); }

int digits(int n) { return n < 10 ? 1 : 1 + digits(n / 10); }

// The typical box decides readability; a few short weight-gradient boxes do not.
double medianDuration(const std::vector<core::PipelineEvent>& events) {
    std::vector<double> d;
    d.reserve(events.size());
    for (const core::PipelineEvent& e : events)
        if (e.end > e.start) d.push_back(e.end - e.start);
    if (d.empty()) return 0;
    const auto mid = d.begin() + std::ptrdiff_t(d.size() / 2);
    std::nth_element(d.begin(), mid, d.end());
    return *mid;
}

struct Stretch {
    double start, end;
};

// The long stretches with no event of the first or last p micro-batches: the
// steady state. Everything outside them (warm-up, cool-down, and for gpipe the turn
// from forwards to backwards) stays in full.
std::vector<Stretch> steadyStretches(const core::PipelineResult& r, int stages, int microBatches) {
    const int p = stages, m = microBatches;
    if (m <= 2 * p) return {};
    std::vector<Stretch> kept;
    for (const core::PipelineEvent& e : r.events)
        if (e.microBatch < p || e.microBatch >= m - p) kept.push_back({e.start, e.end});
    if (kept.empty()) return {};
    std::sort(kept.begin(), kept.end(), [](const Stretch& a, const Stretch& b) { return a.start < b.start; });
    std::vector<Stretch> out;
    double reach = kept.front().end;
    for (const Stretch& k : kept) {
        if (k.start - reach >= kMinStretch * r.makespan) out.push_back({reach, k.start});
        reach = std::max(reach, k.end);
    }
    return out;
}

// Stages and micro-batches, from the events (busy has one entry per stage too).
std::pair<int, int> counts(const core::PipelineResult& r) {
    int p = int(r.busy.size()), m = 0;
    for (const core::PipelineEvent& e : r.events) p = std::max(p, e.stage + 1), m = std::max(m, e.microBatch + 1);
    return {p, m};
}

template <typename Item>
const Item* itemAt(const std::vector<Item>& items, int stage, double x) {
    for (const Item& item : items)
        if (item.stage == stage && x >= item.rect.left() && x <= item.rect.right()) return &item;
    return nullptr;
}

// Enough decimals that a start and an end one duration apart read differently.
QString instantText(double seconds, double duration) {
    const int decimals = duration > 0 ? std::clamp(int(std::ceil(-std::log10(duration))) + 1, 3, 9) : 3;
    return QString::number(seconds, 'f', decimals);
}

QString rangeText(double start, double end) {
    return QStringLiteral("%1–%2 s").arg(instantText(start, end - start), instantText(end, end - start));
}

}  // namespace

TimelineAxis::TimelineAxis(const core::PipelineResult& r, double plotWidth, double zoom, double readablePx) {
    const double makespan = r.makespan > 0 ? r.makespan : 1;  // an empty schedule still maps
    const double content = std::max(plotWidth, 1.0) * zoom, uniform = content / makespan;
    m_pieces = {{0, makespan, 0, uniform, false}};
    const double typical = medianDuration(r.events);
    if (r.makespan <= 0 || typical <= 0 || uniform * typical >= kMinBoxPx) return;
    const auto [stages, microBatches] = counts(r);
    const std::vector<Stretch> stretches = steadyStretches(r, stages, microBatches);
    double squeezedSeconds = 0;
    for (const Stretch& s : stretches) squeezedSeconds += s.end - s.start;
    if (squeezedSeconds <= 0) return;
    const double fullSeconds = makespan - squeezedSeconds;
    // The windows get a readable scale as long as they fit in (1 - share) of the
    // content; never less than the uniform scale, so squeezing only ever helps.
    const double share = std::min(0.5, kSteadyShare + 0.2 * double(stretches.size() - 1));
    const double full = std::max(uniform, std::min(readablePx / typical, (1 - share) * content / fullSeconds));
    if (full <= uniform) return;
    // The stretches share the rest equally, so that each band has room for its label
    // (gpipe's forward stretch is half its backward one), but none gets more than the
    // uniform scale, where its boxes would be worth drawing: water-filling, shortest first.
    std::vector<std::size_t> order(stretches.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto length = [&](std::size_t i) { return stretches[i].end - stretches[i].start; };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return length(a) < length(b); });
    std::vector<double> squeezed(stretches.size());
    double left = content - full * fullSeconds;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const double width = std::min(uniform * length(order[k]), left / double(order.size() - k));
        squeezed[order[k]] = width / length(order[k]);
        left -= width;
    }
    m_compressed = true;
    m_pieces.clear();
    double t = 0, x = 0;
    auto add = [&](double end, double scale, bool isSqueezed) {
        if (end <= t) return;
        m_pieces.push_back({t, end, x, scale, isSqueezed});
        x += (end - t) * scale;
        t = end;
    };
    for (std::size_t i = 0; i < stretches.size(); ++i) {
        add(stretches[i].start, full, false);
        add(stretches[i].end, squeezed[i], true);
    }
    add(makespan, full, false);
}

// Pieces are few (one per stretch and window), so a walk beats a search.
double TimelineAxis::offsetAt(double seconds) const {
    if (m_pieces.empty()) return seconds;
    const auto p = std::find_if(m_pieces.begin(), m_pieces.end() - 1, [&](const Piece& q) { return seconds <= q.end; });
    return p->offset + (seconds - p->start) * p->scale;
}

double TimelineAxis::secondsAt(double offset) const {
    if (m_pieces.empty()) return offset;
    const auto p = std::find_if(m_pieces.begin(), m_pieces.end() - 1,
                                [&](const Piece& q) { return offset <= q.offset + (q.end - q.start) * q.scale; });
    return p->start + (offset - p->offset) / p->scale;
}

TimelineLayout::TimelineLayout(const core::PipelineResult& result, QSizeF viewport, double zoom, double panSeconds,
                               const TimelineMetrics& metrics)
    : m_stages(counts(result).first), m_makespan(result.makespan) {
    m_plot = QRectF(metrics.labelWidth, metrics.titleHeight,
                    std::max(1.0, viewport.width() - metrics.labelWidth - metrics.rightMargin),
                    std::max(1.0, viewport.height() - metrics.titleHeight - metrics.axisHeight));
    m_pitch = m_stages > 0 ? std::min(m_plot.height() / m_stages, kTimelineMaxPitch) : 0;
    m_laneHeight = m_pitch - std::clamp(m_pitch * 0.2, std::min(1.0, m_pitch / 2), 10.0);
    // Readable: the largest micro-batch number fits inside a typical box.
    const double readablePx = std::max(12.0, digits(counts(result).second) * metrics.digitWidth + 6);
    m_axis = TimelineAxis(result, m_plot.width(), zoom, readablePx);
    m_panOffset = m_axis.offsetAt(panSeconds);
    place(result, metrics);
}

QRectF TimelineLayout::laneRect(int stage) const {
    const double top = m_plot.top() + stage * m_pitch + (m_pitch - m_laneHeight) / 2;
    return QRectF(m_plot.left(), top, m_plot.width(), m_laneHeight);
}

QRectF TimelineLayout::span(int stage, double start, double end) const {
    const double left = xAt(start);
    return QRectF(left, laneRect(stage).top(), xAt(end) - left, m_laneHeight);
}

double TimelineLayout::panKeeping(double seconds, double x) const {
    return m_axis.secondsAt(m_axis.offsetAt(seconds) - (x - m_plot.left()));
}

double TimelineLayout::clampPan(double panSeconds) const {
    const double room = std::max(0.0, m_axis.offsetAt(m_makespan) - m_plot.width());
    return m_axis.secondsAt(std::clamp(m_axis.offsetAt(panSeconds), 0.0, room));
}

void TimelineLayout::place(const core::PipelineResult& r, const TimelineMetrics& metrics) {
    std::vector<std::vector<const core::PipelineEvent*>> lanes(static_cast<std::size_t>(m_stages));
    for (const core::PipelineEvent& e : r.events)
        if (e.stage >= 0) lanes[std::size_t(e.stage)].push_back(&e);
    const double eps = 1e-9 * m_makespan;
    auto visible = [&](const QRectF& rect) { return rect.right() >= m_plot.left() && rect.left() <= m_plot.right(); };
    auto squeezedPiece = [&](const core::PipelineEvent& e) -> const TimelineAxis::Piece* {
        for (const TimelineAxis::Piece& p : m_axis.pieces())
            if (p.squeezed && e.start >= p.start && e.end <= p.end) return &p;
        return nullptr;
    };
    std::vector<int> seenInBand(std::size_t(counts(r).second), -1);
    int bandId = 0;
    // seqpipe, seqsmartvpp: boxes are sequence parts, labelled micro-batch.part.
    const bool parts = std::any_of(r.events.begin(), r.events.end(), [](const core::PipelineEvent& e) { return e.part > 0; });
    // A thin communication lane along each stage's bottom, where there is any to show.
    const bool commLane = std::any_of(r.events.begin(), r.events.end(),
                                      [](const core::PipelineEvent& e) { return e.commExposed + e.commHidden > 0; });
    const double commHeight = commLane && m_laneHeight >= 12 ? std::clamp(std::round(m_laneHeight * 0.16), 3.0, 6.0) : 0.0;

    for (int s = 0; s < m_stages; ++s) {
        auto& lane = lanes[std::size_t(s)];
        std::stable_sort(lane.begin(), lane.end(), [](auto* a, auto* b) { return a->start < b->start; });
        m_laneBegin.push_back(m_boxes.size());
        double cursor = 0;  // the lane is accounted for up to here
        auto idle = [&](double until) {
            if (until - cursor > eps)
                if (TimelineBubble b{span(s, cursor, until), s, cursor, until}; visible(b.rect)) m_bubbles.push_back(b);
        };
        TimelineBand band;
        const TimelineAxis::Piece* bandPiece = nullptr;
        auto closeBand = [&] {
            band.rect = span(s, band.start, band.end);
            if (visible(band.rect)) m_bands.push_back(band);
            bandPiece = nullptr;
        };
        // Whether this lane runs weight gradients apart: only then is a backward that
        // holds its own worth saying so.
        const bool splitLane = std::any_of(lane.begin(), lane.end(), [](auto* e) { return e->phase == core::Phase::WeightGrad; });
        for (std::size_t i = 0; i < lane.size(); ++i) {
            const core::PipelineEvent* e = lane[i];
            const TimelineAxis::Piece* piece = squeezedPiece(*e);
            if (bandPiece && piece != bandPiece) closeBand();
            if (piece) {
                if (!bandPiece) {  // idle time before a band is a bubble; inside it, the band's share
                    idle(e->start);
                    band = TimelineBand{{}, s, 0, 0, e->start, e->start, 0, false, false, false};
                    bandPiece = piece;
                    ++bandId;
                }
                band.end = e->end;
                ++band.events;
                if (!(e->paired && e->phase != core::Phase::Forward)) band.busy += e->end - e->start;  // a pair once
                band.forward |= e->phase == core::Phase::Forward;
                band.backward |= e->phase == core::Phase::Backward;
                band.weightGrad |= e->phase == core::Phase::WeightGrad;
                if (int& seen = seenInBand[std::size_t(e->microBatch)]; seen != bandId)
                    seen = bandId, ++band.microBatches;
            } else {
                idle(e->start);
                TimelineBox box{
                    span(s, e->start, e->end), s, e->microBatch, e->chunk, e->phase, e->start, e->end, false};
                box.withWeightGrad = e->withWeightGrad && splitLane;
                if (parts) box.part = e->part;
                box.commExposed = e->commExposed, box.commHidden = e->commHidden;
                if (commHeight > 0) {
                    box.commRect = QRectF(box.rect.left(), box.rect.bottom() - commHeight, box.rect.width(), commHeight);
                    box.rect.setHeight(box.rect.height() - commHeight - 1);
                }
                if (e->paired) {  // its partner is the neighbour with the same start (simulatePipeline emits them together)
                    const core::PipelineEvent* partner = nullptr;
                    for (std::size_t j : {i + 1, i - 1})
                        if (j < lane.size() && lane[j]->paired && lane[j]->start == e->start && lane[j]->phase != e->phase)
                            partner = lane[j];
                    box.paired = true;
                    if (partner) box.pairMicroBatch = partner->microBatch, box.pairChunk = partner->chunk;
                    const double half = box.rect.height() / 2;
                    box.rect = e->phase == core::Phase::Forward ? box.rect.adjusted(0, 0, 0, -half) : box.rect.adjusted(0, half, 0, 0);
                    const double commHalf = box.commRect.height() / 2;  // the pair's lane: forward's over backward's
                    if (!box.commRect.isEmpty())
                        box.commRect = e->phase == core::Phase::Forward ? box.commRect.adjusted(0, 0, 0, -commHalf)
                                                                        : box.commRect.adjusted(0, commHalf, 0, 0);
                }
                box.labelFits = box.rect.width() >= double(box.label().size()) * metrics.digitWidth + 4 &&
                                box.rect.height() >= metrics.textHeight;
                if (visible(box.rect)) m_boxes.push_back(box);
            }
            cursor = std::max(cursor, e->end);
        }
        if (bandPiece) closeBand();
        idle(m_makespan);
    }
    m_laneBegin.push_back(m_boxes.size());
}

int TimelineLayout::laneAt(double y) const {
    if (m_pitch <= 0 || y < m_plot.top()) return -1;
    const int s = int((y - m_plot.top()) / m_pitch);
    if (s >= m_stages) return -1;
    const QRectF lane = laneRect(s);
    return y >= lane.top() && y <= lane.bottom() ? s : -1;
}

const TimelineBox* TimelineLayout::boxAt(QPointF point) const {
    const int s = laneAt(point.y());
    if (s < 0 || point.x() < m_plot.left() || point.x() > m_plot.right()) return nullptr;
    const auto begin = m_boxes.begin() + std::ptrdiff_t(m_laneBegin[std::size_t(s)]);
    const auto end = m_boxes.begin() + std::ptrdiff_t(m_laneBegin[std::size_t(s) + 1]);
    auto it = std::upper_bound(begin, end, point.x(), [](double x, const TimelineBox& b) { return x < b.rect.left(); });
    if (it == begin) return nullptr;
    --it;
    // The two halves of a pair share their span: take the one under the pointer.
    if (it->paired && !it->rect.contains(point) && it != begin && std::prev(it)->paired &&
        std::prev(it)->rect.left() == it->rect.left())
        --it;
    return point.x() <= it->rect.right() && (!it->paired || it->rect.contains(point)) ? &*it : nullptr;
}

const TimelineBand* TimelineLayout::bandAt(QPointF point) const {
    return itemAt(m_bands, laneAt(point.y()), point.x());
}

const TimelineBubble* TimelineLayout::bubbleAt(QPointF point) const {
    return itemAt(m_bubbles, laneAt(point.y()), point.x());
}

QString TimelineLayout::hoverText(QPointF point, QRectF* item) const {
    auto say = [&](const auto* found) {
        if (item) *item = found->rect;
        return describe(*found);
    };
    if (const TimelineBox* box = boxAt(point)) return say(box);
    if (const TimelineBand* band = bandAt(point)) return say(band);
    if (const TimelineBubble* bubble = bubbleAt(point)) return say(bubble);
    return {};
}

std::vector<TimelineTick> TimelineLayout::ticks() const {
    std::vector<TimelineTick> out;
    if (m_makespan <= 0) return out;
    const bool inMs = m_makespan < 1;  // UI.md: ms under one second
    const double from = secondsAt(m_plot.left()), to = secondsAt(m_plot.right());
    double lastX = -std::numeric_limits<double>::infinity();
    for (const TimelineAxis::Piece& piece : m_axis.pieces()) {
        if (piece.squeezed) continue;  // a band has no uniform time to label
        const double step = niceStep(kTickSpacingPx / piece.scale);
        const double shown = inMs ? step * 1e3 : step;
        const int decimals = std::max(0, -int(std::floor(std::log10(shown) + 1e-9)));
        const double a = std::max({piece.start, from, 0.0}), b = std::min({piece.end, to, m_makespan});
        for (double i = std::ceil(a / step - 1e-9); i * step <= b + step * 1e-9; ++i) {
            const double x = xAt(i * step);
            if (x - lastX < 0.6 * kTickSpacingPx) continue;
            out.push_back({x, QString::number(inMs ? i * step * 1e3 : i * step, 'f', decimals) +
                                  (inMs ? QStringLiteral(" ms") : QStringLiteral(" s"))});
            lastX = x;
        }
    }
    return out;
}


QString phaseName(core::Phase phase) {
    switch (phase) {
    case core::Phase::Forward: return tr("forward");
    case core::Phase::Backward: return tr("backward");
    case core::Phase::WeightGrad: return tr("weight gradient");
    }
    return {};
}

QString describe(const TimelineBox& b) {
    QString phase = phaseName(b.phase);
    if (b.phase == core::Phase::Backward && b.withWeightGrad) phase = tr("backward with its weight gradient");
    QString text = tr("stage %1 · micro-batch %2 · chunk %3 · %4 · %5 (%6)")
                       .arg(b.stage)
                       .arg(b.part < 0 ? QString::number(b.microBatch)
                                       : tr("%1, sequence part %2").arg(b.microBatch).arg(b.part))
                       .arg(b.chunk)
                       .arg(phase, secondsText(b.end - b.start), rangeText(b.start, b.end));
    if (b.commExposed + b.commHidden > 0)
        text += tr(" · communication %1 exposed, %2 hidden").arg(secondsText(b.commExposed), secondsText(b.commHidden));
    if (b.paired && b.pairMicroBatch >= 0)
        text += tr(" · overlapped with micro-batch %1's %2 (chunk %3): each hides the other's communication")
                    .arg(b.pairMicroBatch)
                    .arg(b.phase == core::Phase::Forward ? tr("backward") : tr("forward"))
                    .arg(b.pairChunk);
    return text;
}

QString bandLabel(const TimelineBand& b) {
    return tr("steady state: %1 micro-batches").arg(QLocale().toString(b.microBatches));
}

QString describe(const TimelineBand& b) {
    const double idle = b.end > b.start ? 100 * (1 - b.busy / (b.end - b.start)) : 0;
    return tr("stage %1 · %2 · %3 (%4) · idle %5 % · zoom in to see each box")
        .arg(b.stage)
        .arg(bandLabel(b), secondsText(b.end - b.start), rangeText(b.start, b.end))
        .arg(std::max(0.0, idle), 0, 'f', 1);
}

QString describe(const TimelineBubble& b) {
    return tr("stage %1 · bubble (idle) · %2 (%3)")
        .arg(b.stage)
        .arg(secondsText(b.end - b.start), rangeText(b.start, b.end));
}

}  // namespace tessera::ui
