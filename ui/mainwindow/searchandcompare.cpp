// The main window's search and comparison: the search on its worker, its views
// (Pareto, candidates), loading a picked strategy, and the pinned baseline.
#include <QChartView>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "charts/paretochart.h"
#include "report/searchreport.h"
#include "search/strategy.h"
#include "mainwindow/mainwindow.h"
#include "models/candidatesmodel.h"
#include "models/stagememorymodel.h"

namespace tessera::ui {

void MainWindow::pinBaseline() {
    if (!m_estimate || !m_resolved) return;
    m_baseline = m_estimate;
    m_stageModel->setBaseline(m_baseline);
    showEstimate(*m_resolved, *m_estimate);
}

void MainWindow::unpinBaseline() {
    m_baseline.reset();
    m_stageModel->setBaseline(std::nullopt);
    if (m_estimate && m_resolved) showEstimate(*m_resolved, *m_estimate);
}

void MainWindow::startSearch() {
    if (!m_scenario) return;
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    m_search->start(*m_scenario);
}

void MainWindow::cancelSearch() {
    m_search->cancel();
    statusBar()->showMessage(tr("Search cancelled"), 3000);
}

void MainWindow::pickCandidate(const core::Candidate& candidate) {
    if (!m_scenario) return;
    evaluate(core::scenarioFor(*m_scenario, candidate));
    statusBar()->showMessage(tr("Loaded %1").arg(QString::fromStdString(candidate.label())), 5000);
}

void MainWindow::showSearch(std::shared_ptr<const SearchOutcome> outcome) {
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    if (!outcome->error.isEmpty()) {
        m_refusals->setPlainText(tr("The scenario cannot be searched:\n\n%1").arg(outcome->error));
        statusBar()->showMessage(tr("Search failed"), 5000);
        emit searchFinished();
        return;
    }
    const core::SearchResult& r = outcome->result;
    m_candidateModel->setCandidates(r.top);
    QString refusals = QString::fromStdString(core::searchText(outcome->setup, r, 0));
    m_refusals->setPlainText(refusals.left(refusals.indexOf(QStringLiteral("\nBest strategies"))));
    std::optional<CurrentPoint> current;
    if (m_estimate) current = CurrentPoint{m_estimate->peakMemory, m_estimate->stepSeconds};
    auto* paretoView = m_pareto->findChild<QChartView*>("paretoChart");
    QChart* old = paretoView->chart();
    QPointer<MainWindow> self(this);
    std::optional<CurrentPoint> base;
    if (m_baseline) base = CurrentPoint{m_baseline->peakMemory, m_baseline->stepSeconds};
    paretoView->setChart(buildParetoChart(
        r, outcome->setup.space.memoryLimit, current, [self](const core::Candidate& c) { if (self) self->pickCandidate(c); }, base));
    delete old;
    statusBar()->showMessage(tr("Search done: %1 of %2 candidates fit%3")
                                 .arg(QLocale().toString(qulonglong(r.feasible)))
                                 .arg(QLocale().toString(qulonglong(r.spaceSize)))
                                 .arg(r.cancelled ? tr(" (cancelled)") : QString()),
                             8000);
    emit searchFinished();
}

}  // namespace tessera::ui
