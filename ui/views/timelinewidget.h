#pragma once
// The pipeline view: a hand-painted timeline of one simulated schedule. All
// geometry comes from TimelineLayout (timelinemapping.h); this class holds the view
// state (zoom, pan in seconds, the title), turns wheel, drag and hover into changes
// of it (double-click fits the whole step again), and paints. The layout is rebuilt only when the data, the size, the
// font or the view change, never from the cost model: the caller simulates and hands over a finished PipelineResult.
#include <QWidget>

#include <optional>

#include "views/timelinemapping.h"

namespace tessera::ui {

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    // Keeps the zoom across results (an edit re-simulates; the reader stays where
    // they were looking), only the pan is clamped to the new makespan.
    void setPipeline(core::PipelineResult result);
    const core::PipelineResult& pipeline() const { return m_result; }
    // The line above the lanes, e.g. "bubble 4.3 % · step 13.5 s". Empty: the
    // bubble and makespan of the simulated pipeline.
    void setTitle(const QString& title);
    QString title() const;

    double zoom() const { return m_zoom; }
    double panSeconds() const { return m_pan; }
    void setView(double zoom, double panSeconds);
    void resetView() { setView(1, 0); }
    // Zoom by `factor` keeping the time under pixel x where it is, as the wheel does.
    void zoomAround(double x, double factor);

    const TimelineLayout& timelineLayout() const;
    QString toolTipAt(QPointF point) const { return timelineLayout().hoverText(point); }

    QSize sizeHint() const override { return {900, 320}; }
    // The height at which every lane reaches its full height: more is empty space.
    int naturalHeight() const;
    QSize minimumSizeHint() const override { return {320, 140}; }

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    TimelineMetrics metrics() const;
    void relayout();
    void showHover(QPointF at, QPoint global);
    void paintTitle(QPainter& painter, const TimelineLayout& layout) const;
    void paintLanes(QPainter& painter, const TimelineLayout& layout) const;
    void paintAxis(QPainter& painter, const TimelineLayout& layout) const;

    core::PipelineResult m_result;
    QString m_title;
    bool m_phases[3] = {};  // which phases occur, for the legend
    double m_zoom = 1;
    double m_pan = 0;                     // seconds at the plot's left edge
    std::optional<double> m_dragSeconds;  // the time grabbed by a drag, kept under the pointer
    mutable std::optional<TimelineLayout> m_layout;
};

}  // namespace tessera::ui
