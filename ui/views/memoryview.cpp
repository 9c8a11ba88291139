#include "views/memoryview.h"

#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "charts/memorychart.h"
#include "views/fitpanel.h"
#include "views/layerstrip.h"
#include "report/estimatereport.h"
#include "models/stagememorymodel.h"
#include "charts/hovertip.h"
#include "session/session.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

MemoryView::MemoryView(Session& session, QWidget* parent) : LazyView(parent), m_session(session) {
    // The chart and its table on the left, why it does (not) fit and what would on the right.
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* left = new QVBoxLayout;
    outer->addLayout(left, 1);
    outer->addWidget(new FitPanel(m_session, this));
    auto* layout = left;
    m_chart = new QChartView(this);
    keepHoverTips(m_chart);  // a bar's exact bytes stay while the pointer rests on it
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setObjectName(QStringLiteral("memoryChart"));
    layout->addWidget(m_chart, 3);
    m_strip = new LayerStrip(m_chart, this);
    layout->addWidget(m_strip);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);  // a long note must not widen the window past the forms
    layout->addWidget(m_summary);
    m_model = new StageMemoryModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    connect(&m_session, &Session::evaluated, this, &MemoryView::update);
    connect(&m_session, &Session::baselineChanged, this, &MemoryView::update);
    update();
}

void MemoryView::update() {
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) return;
    const core::Estimate& e = evaluation->estimate;
    m_model->setEstimate(e);
    setLayers(*evaluation);
    m_model->setBaseline(m_session.baseline() ? std::optional(m_session.baseline()->estimate) : std::nullopt);
    const core::StageEstimate& peak = e.stages[std::size_t(e.peakStage)];
    QString summary = (peak.hasMirror ? tr("Device %1 (stages %1 and %7): %2 of %3 GiB · activations %4 GiB (%5 %)%6")
                                      : tr("Stage %1: %2 of %3 GiB · activations %4 GiB (%5 %)%6"))
                          .arg(peak.stage)
                          .arg(gibText(peak.memory.total()), gibText(e.deviceMemory), gibText(peak.memory.activations))
                          .arg(100.0 * double(peak.memory.activations) / double(peak.memory.total()), 0, 'f', 1)
                          .arg(e.fits ? QString() : tr(" · does not fit"));
    // (Only a device of two stages names its mirror: no %7 to fill otherwise.)
    if (peak.hasMirror) summary = summary.arg(int(e.stages.size()) - 1 - peak.stage);
    // The vision tower is folded into its stage's terms; say what it holds there.
    for (const core::StageEstimate& st : e.stages)
        if (st.vision.any()) summary += QStringLiteral("\n") + qs(core::visionShareText(st));
    m_summary->setText(summary);
    const QString note = m_session.notCurrentNote();
    if (!note.isEmpty()) m_summary->setText(note + QStringLiteral(" · ") + m_summary->text());
    m_summary->setStyleSheet(note.isEmpty() ? QString() : colours::problemLabel());
    invalidate();
}

// Each stage's layers (the evaluation places them) as the strip's cells; classes that
// read alike share one shade, the legend runs none, the selective ones, full.
void MemoryView::setLayers(const core::Evaluation& evaluation) {
    const core::StagedLayers& layers = evaluation.layers;
    std::vector<bool> used(layers.classNames.size(), false);  // the legend names only what some layer runs
    for (const auto& stage : layers.stages)
        for (const core::PlacedLayer& l : stage) used[l.cls] = true;
    QStringList options;
    auto rank = [](const std::string& n) { return n == "none" ? 0 : n == "full" ? 2 : 1; };
    for (int r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < layers.classNames.size(); ++c)
            if (used[c] && rank(layers.classNames[c]) == r && !options.contains(qs(layers.classNames[c])))
                options << qs(layers.classNames[c]);
    std::vector<std::vector<LayerStrip::Cell>> stages;
    for (const auto& stage : layers.stages) {
        auto& cells = stages.emplace_back();
        for (const core::PlacedLayer& l : stage)
            cells.push_back({l.layer, l.chunk, int(options.indexOf(qs(layers.classNames[l.cls]))), qs(layers.kindNames[l.kind]),
                             l.offloaded});
    }
    m_strip->setStages(std::move(stages), options);
}

void MemoryView::rebuild() {
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) return;
    const core::Estimate* baseline = m_session.baseline() ? &m_session.baseline()->estimate : nullptr;
    QChart* old = m_chart->chart();
    m_chart->setChart(buildMemoryChart(evaluation->estimate, baseline, m_session.baselineLabel()));
    m_strip->followChart();
    if (!m_session.notCurrentNote().isEmpty())
        m_chart->chart()->setTitle(tr("NOT CURRENT (last scenario that priced) · ") + m_chart->chart()->title());
    delete old;
}

}  // namespace tessera::ui
