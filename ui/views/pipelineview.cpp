#include "views/pipelineview.h"

#include <QChartView>
#include <QVBoxLayout>

#include "charts/stepchart.h"
#include "charts/hovertip.h"
#include "session/session.h"
#include "style/text.h"
#include "views/timelinewidget.h"

namespace tessera::ui {

QString timelineTitle(const core::Evaluation& evaluation, const core::Evaluation* baseline) {
    const core::Estimate& e = evaluation.estimate;
    if (!evaluation.notSimulated.empty())
        return QObject::tr("step %1 · schedule not drawn: %2").arg(secondsText(e.stepSeconds), qs(evaluation.notSimulated));
    const QString versus = baseline ? QObject::tr(" (baseline %1)").arg(secondsText(baseline->estimate.stepSeconds)) : QString();
    // zb-h2's stages start and end apart: say where the last one ends and what the step is.
    const QString staggered =
        e.lastStageEnd <= 0 ? QString()
        : e.stepIsStageSpan ? QObject::tr(" · longest stage; last ends at %1 (post-validated)").arg(secondsText(e.lastStageEnd))
                            : QObject::tr(" · waits for the last stage (not post-validated)");
    return QObject::tr("idle %1 % of all stages' time (bubble on the slowest stage %2 %) · step %3%4%5")
        .arg(evaluation.pipeline.bubbleFraction * 100, 0, 'f', 1)
        .arg(e.bubbleFraction * 100, 0, 'f', 1)
        .arg(secondsText(e.stepSeconds), staggered, versus);
}

PipelineView::PipelineView(Session& session, QWidget* parent) : LazyView(parent), m_session(session) {
    auto* layout = new QVBoxLayout(this);
    m_timeline = new TimelineWidget(this);
    layout->addWidget(m_timeline, 3);
    m_chart = new QChartView(this);
    keepHoverTips(m_chart);  // a bar's exact bytes stay while the pointer rests on it
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setObjectName(QStringLiteral("stepChart"));
    layout->addWidget(m_chart, 2);
    connect(&m_session, &Session::evaluated, this, &PipelineView::update);
    // An edit keeps the reader's zoom; a new scenario starts from the whole step.
    connect(&m_session, &Session::documentChanged, this, [this](Change why) {
        if (why == Change::Load || why == Change::Recovery) m_timeline->setView(1, 0);
    });
    connect(&m_session, &Session::baselineChanged, this, &PipelineView::update);
    update();
}

void PipelineView::update() {
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) return;
    m_timeline->setPipeline(evaluation->pipeline);
    m_timeline->setMaximumHeight(std::max(m_timeline->minimumSizeHint().height(), m_timeline->naturalHeight()));
    const QString note = m_session.notCurrentNote();
    m_timeline->setTitle((note.isEmpty() ? QString() : note + QStringLiteral(" · ")) +
                         timelineTitle(*evaluation, m_session.baseline().get()));
    invalidate();
}

void PipelineView::rebuild() {
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) return;
    const core::Estimate* baseline = m_session.baseline() ? &m_session.baseline()->estimate : nullptr;
    QChart* old = m_chart->chart();
    m_chart->setChart(buildStepChart(evaluation->estimate, *evaluation->resolved.scenario.exec.micro_batch_num, baseline));
    // Room for every row's label: the timeline above gives way (pp 16 at 1280 x 800 showed
    // every other stage's label, and not the step's).
    m_chart->setMinimumHeight(stepChartMinimumHeight(stepChartRows(evaluation->estimate, baseline != nullptr)));
    if (!m_session.notCurrentNote().isEmpty())
        m_chart->chart()->setTitle(tr("NOT CURRENT (last scenario that priced) · ") + m_chart->chart()->title());
    delete old;
}

}  // namespace tessera::ui
