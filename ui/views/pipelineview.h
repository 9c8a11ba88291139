#pragma once
// The Pipeline tab, a view of the Session: the schedule as it runs (the timeline of
// the evaluation's simulated events) above where the step and each stage's step go
// (the step chart).
#include "views/lazyview.h"

class QChartView;

namespace tessera::core {
struct Evaluation;
}

namespace tessera::ui {

class Session;
class TimelineWidget;

class PipelineView : public LazyView {
    Q_OBJECT
public:
    explicit PipelineView(Session& session, QWidget* parent = nullptr);
    TimelineWidget* timeline() const { return m_timeline; }

private:
    void update();
    void rebuild() override;

    Session& m_session;
    TimelineWidget* m_timeline = nullptr;
    QChartView* m_chart = nullptr;
};

// The timeline's title: the idle share over all stages (the simulation's), the
// slowest stage's bubble (the estimate's) and the step, with the baseline's step when
// one is pinned; or why the schedule was not drawn.
QString timelineTitle(const core::Evaluation& evaluation, const core::Evaluation* baseline);

}  // namespace tessera::ui
