#pragma once
// The pipeline timeline's geometry: where each event of a simulated schedule sits
// on screen, kept apart from painting so that it can be tested number for number.
// The widget (timelinewidget.h) only asks this for rectangles and draws them.
//
// Picture: one lane per stage, stage 0 on top; time runs to the right from the
// step's start; a left margin holds the lane labels, a top band the title line and
// a bottom band the time axis. Zoom 1 fits the whole makespan in the plot; the pan
// is the time at the plot's left edge, in seconds.
//
// Long schedules: with hundreds of micro-batches a box is narrower than a pixel at
// zoom 1 and the lanes turn into noise. Then the time axis becomes piecewise
// linear: the windows that hold every event of the first and of the last p
// micro-batches (the warm-up and the cool-down, where the bubble lives) are drawn
// at a readable scale, and each long stretch between them (the steady state; gpipe
// has two, its forward and its backward phase) is squeezed into a band per lane
// that counts its micro-batches instead of drawing them. The bands take about a
// third of the plot (half for two), split evenly so each has room for its label,
// and never more than the uniform scale would give them. The axis stays monotonic,
// so seconds and pixels convert both ways, and zooming in turns the bands back into
// boxes once those are 2 px wide at a uniform scale. Zoom and drag keep the time
// under the pointer fixed through that switch (panKeeping), which is why the pan is
// kept in seconds rather than in pixels.
//
// Nothing here runs the cost model: the input is a finished PipelineResult.
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <string>
#include <vector>

#include "pipeline/schedule.h"
#include "style/text.h"

namespace tessera::core {
struct Estimate;
}

namespace tessera::ui {

// A lane stops growing here: taller boxes say nothing more.
inline constexpr double kTimelineMaxPitch = 52;

// The font's sizes, passed in so that the mapping needs no widget.
struct TimelineMetrics {
    double titleHeight = 28;  // the title line above the lanes
    double labelWidth = 72;   // left margin for "stage 12"
    double axisHeight = 22;   // tick labels under the lanes
    double rightMargin = 12;  // the last box does not touch the edge
    double digitWidth = 7;    // one digit's advance, to decide whether a number fits
    double textHeight = 14;
};

struct TimelineBox {
    QRectF rect;
    int stage = 0, microBatch = 0, chunk = 0;
    core::Phase phase = core::Phase::Forward;
    double start = 0, end = 0;  // seconds
    bool labelFits = false;     // the micro-batch number fits inside
    bool withWeightGrad = false;  // a backward that runs its weight gradient inside, on a lane that splits others
    // Half of an overlapped F&B pair (DualPipe): the forward takes the lane's top
    // half, the backward its bottom half, over the same span.
    bool paired = false;
    int pairMicroBatch = -1, pairChunk = -1;
    int part = -1;  // seqpipe, seqsmartvpp: which sequence part of the micro-batch (-1: the schedule runs whole micro-batches)
    // The communication lane under the box: exposed (the stage waits) and hidden (beside
    // compute) seconds of this box's communication; commRect empty without a lane.
    QRectF commRect = QRectF();
    double commExposed = 0, commHidden = 0;
    QString label() const { return part < 0 ? QString::number(microBatch) : QStringLiteral("%1.%2").arg(microBatch).arg(part); }
};

struct TimelineBubble {  // a stage waiting, between 0 and the makespan
    QRectF rect;
    int stage = 0;
    double start = 0, end = 0;
};

struct TimelineBand {  // a compressed steady state on one lane
    QRectF rect;
    int stage = 0;
    int microBatches = 0;  // distinct micro-batches with work inside
    int events = 0;
    double start = 0, end = 0, busy = 0;
    bool forward = false, backward = false, weightGrad = false;  // the phases inside
};

struct TimelineTick {
    double x = 0;
    QString text;
};

// Seconds <-> offset in pixels from time 0, for one zoom. Piecewise linear; a
// squeezed piece is a steady state drawn as bands. Outside [0, makespan] it goes on
// at the scale of the nearest piece, so a pan past either end still maps.
class TimelineAxis {
public:
    struct Piece {
        double start = 0, end = 0;  // seconds
        double offset = 0;          // pixels at start
        double scale = 1;           // pixels per second
        bool squeezed = false;
    };
    TimelineAxis() = default;
    TimelineAxis(const core::PipelineResult& result, double plotWidth, double zoom, double readablePx);
    double offsetAt(double seconds) const;
    double secondsAt(double offset) const;
    bool compressed() const { return m_compressed; }
    const std::vector<Piece>& pieces() const { return m_pieces; }

private:
    std::vector<Piece> m_pieces;
    bool m_compressed = false;
};

class TimelineLayout {
public:
    TimelineLayout() = default;
    TimelineLayout(const core::PipelineResult& result, QSizeF viewport, double zoom, double panSeconds,
                   const TimelineMetrics& metrics = {});

    QRectF plotRect() const { return m_plot; }  // lanes and time, without margins
    QRectF laneRect(int stage) const;           // one lane across the plot
    int stages() const { return m_stages; }
    double xAt(double seconds) const { return m_plot.left() + m_axis.offsetAt(seconds) - m_panOffset; }
    double secondsAt(double x) const { return m_axis.secondsAt(x - m_plot.left() + m_panOffset); }
    // The pan that puts `seconds` at pixel x at this layout's zoom.
    double panKeeping(double seconds, double x) const;
    // The nearest pan that keeps the plot inside [0, makespan] (0 when it all fits).
    double clampPan(double panSeconds) const;
    bool compressed() const { return m_axis.compressed(); }
    const TimelineAxis& axis() const { return m_axis; }

    // What is visible, in lane order and, within a lane, in time order.
    const std::vector<TimelineBox>& boxes() const { return m_boxes; }
    const std::vector<TimelineBubble>& bubbles() const { return m_bubbles; }
    const std::vector<TimelineBand>& bands() const { return m_bands; }
    std::vector<TimelineTick> ticks() const;

    const TimelineBox* boxAt(QPointF point) const;
    const TimelineBand* bandAt(QPointF point) const;
    const TimelineBubble* bubbleAt(QPointF point) const;
    QString hoverText(QPointF point, QRectF* item = nullptr) const;  // empty over nothing; item: what it describes

private:
    void place(const core::PipelineResult& result, const TimelineMetrics& metrics);
    int laneAt(double y) const;
    QRectF span(int stage, double start, double end) const;

    TimelineAxis m_axis;
    QRectF m_plot;
    int m_stages = 0;
    double m_pitch = 0, m_laneHeight = 0, m_panOffset = 0, m_makespan = 0;
    std::vector<TimelineBox> m_boxes;
    std::vector<std::size_t> m_laneBegin;  // index of each lane's first box; one past the end last
    std::vector<TimelineBubble> m_bubbles;
    std::vector<TimelineBand> m_bands;
};

// Text: durations through secondsText (style/text.h), as everywhere.
QString phaseName(core::Phase phase);
QString describe(const TimelineBox& box);  // "stage 1 · micro-batch 7 · chunk 0 · backward · 76.8 ms (12.345–12.422 s)"
QString bandLabel(const TimelineBand& band);  // "steady state: 496 micro-batches"
QString describe(const TimelineBand& band);
QString describe(const TimelineBubble& bubble);

}  // namespace tessera::ui
