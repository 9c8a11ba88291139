#include "mainwindow/mainwindow.h"

#include <QChartView>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "charts/memorychart.h"
#include "io/estimatereport.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "io/showreport.h"
#include "models/stagememorymodel.h"

namespace tessera::ui {

namespace {

QPlainTextEdit* textView(QWidget* parent) {
    auto* text = new QPlainTextEdit(parent);
    text->setReadOnly(true);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text->setLineWrapMode(QPlainTextEdit::NoWrap);
    return text;
}

QString gib(core::Bytes b) { return QString::number(double(b) / double(core::GiB), 'f', 1); }

}  // namespace

MainWindow::MainWindow(const QString& scenarioPath, QWidget* parent) : QMainWindow(parent) {
    m_tabs = new QTabWidget(this);
    // Memory: the stacked bars, a one-line summary, the exact table.
    m_memory = new QWidget(m_tabs);
    auto* memoryLayout = new QVBoxLayout(m_memory);
    auto* chartView = new QChartView(m_memory);
    chartView->setRenderHint(QPainter::Antialiasing);
    chartView->setObjectName("memoryChart");
    memoryLayout->addWidget(chartView, 3);
    m_summary = new QLabel(m_memory);
    memoryLayout->addWidget(m_summary);
    m_stageModel = new StageMemoryModel(this);
    m_stageTable = new QTableView(m_memory);
    m_stageTable->setModel(m_stageModel);
    m_stageTable->verticalHeader()->hide();
    m_stageTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    memoryLayout->addWidget(m_stageTable, 1);
    m_tabs->addTab(m_memory, tr("Memory"));
    m_pipeline = new QLabel(tr("The pipeline timeline arrives with the desktop-app issue."), m_tabs);
    m_tabs->addTab(m_pipeline, tr("Pipeline"));
    m_estimateText = textView(m_tabs);
    m_tabs->addTab(m_estimateText, tr("Estimate"));
    m_scenarioText = textView(m_tabs);
    m_tabs->addTab(m_scenarioText, tr("Scenario"));
    setCentralWidget(m_tabs);
    m_figures = new QLabel(this);
    statusBar()->addPermanentWidget(m_figures);
    resize(1280, 820);
    load(scenarioPath);
}

QWidget* MainWindow::view(const QString& name) const {
    if (name == "memory") return m_memory;
    if (name == "pipeline") return m_pipeline;
    if (name == "estimate") return m_estimateText;
    if (name == "scenario") return m_scenarioText;
    return nullptr;
}

bool MainWindow::showView(const QString& name) {
    QWidget* w = view(name);
    if (!w) return false;
    m_tabs->setCurrentWidget(w);
    return true;
}

void MainWindow::load(const QString& scenarioPath) {
    using namespace tessera::core;
    const QString title = scenarioPath.isEmpty() ? QString::fromLatin1(kDefaultScenario) : scenarioPath;
    setWindowTitle(tr("%1 - Tessera").arg(title));
    try {
        const ResolvedScenario r = resolve(scenarioPath.isEmpty() ? presetScenario(kDefaultScenario)
                                                                  : loadScenarioOrPreset(scenarioPath.toStdString()));
        showEstimate(r, estimate(r));
        m_loaded = true;
    } catch (const SpecError& e) {
        const QString problems = tr("This scenario cannot be used:\n\n%1").arg(QString::fromStdString(e.what()));
        m_scenarioText->setPlainText(problems);
        m_estimateText->setPlainText(problems);
        m_tabs->setCurrentWidget(m_scenarioText);
        statusBar()->showMessage(tr("%n problem(s)", nullptr, static_cast<int>(e.diagnostics().size())));
        m_loaded = false;
    }
}

void MainWindow::showEstimate(const core::ResolvedScenario& r, const core::Estimate& e) {
    m_scenarioText->setPlainText(QString::fromStdString(core::showText(r)));
    m_estimateText->setPlainText(QString::fromStdString(core::estimateText(r, e)));
    m_stageModel->setEstimate(e);
    auto* chartView = m_memory->findChild<QChartView*>("memoryChart");
    QChart* old = chartView->chart();
    chartView->setChart(buildMemoryChart(e));
    delete old;
    const core::StageEstimate& peak = e.stages[std::size_t(e.peakStage)];
    m_summary->setText(tr("Stage %1: %2 of %3 GiB · activations %4 GiB (%5 %)%6")
                           .arg(peak.stage).arg(gib(peak.memory.total())).arg(gib(e.deviceMemory))
                           .arg(gib(peak.memory.activations))
                           .arg(100.0 * double(peak.memory.activations) / double(peak.memory.total()), 0, 'f', 1)
                           .arg(e.fits ? QString() : tr(" · does not fit")));
    const QString fits = e.fits ? QStringLiteral("✓") : tr("over");
    m_figures->setText(tr("step %1 · %2 tok/s · MFU %3 % · peak %4 / %5 GiB %6")
                           .arg(QString::fromStdString(core::formatSeconds(e.stepSeconds)))
                           .arg(QLocale().toString(qlonglong(std::llround(e.tokensPerSecond))))
                           .arg(e.mfu * 100, 0, 'f', 1).arg(gib(e.peakMemory)).arg(gib(e.deviceMemory)).arg(fits));
}

}  // namespace tessera::ui
