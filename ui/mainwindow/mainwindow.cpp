#include "mainwindow/mainwindow.h"

#include <QAction>
#include <QChartView>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTimer>
#include <QToolBar>
#include <QMessageBox>
#include <QUndoStack>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QLocale>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "charts/memorychart.h"
#include "export/report.h"
#include "export/reviewmode.h"
#include "forms/scenarioeditor.h"
#include "charts/paretochart.h"
#include "charts/stepchart.h"
#include "report/searchreport.h"
#include "models/candidatesmodel.h"
#include "report/estimatereport.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "report/showreport.h"
#include "models/stagememorymodel.h"
#include "model/evaluation.h"
#include "views/timelinemapping.h"
#include "views/timelinewidget.h"

namespace tessera::ui {

namespace {

QPlainTextEdit* textView(QWidget* parent) {
    auto* text = new QPlainTextEdit(parent);
    text->setReadOnly(true);
    text->setFont(fixedFont());
    text->setLineWrapMode(QPlainTextEdit::NoWrap);
    return text;
}

QString gib(core::Bytes b) { return QString::number(double(b) / double(core::GiB), 'f', 1); }

}  // namespace

MainWindow::MainWindow(const QString& scenarioPath, QWidget* parent, bool restore) : QMainWindow(parent) {
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
    // Pipeline: the schedule as it runs, and below it where the step's time goes.
    m_pipeline = new QWidget(m_tabs);
    auto* pipelineLayout = new QVBoxLayout(m_pipeline);
    m_timeline = new TimelineWidget(m_pipeline);
    pipelineLayout->addWidget(m_timeline, 3);
    auto* stepView = new QChartView(m_pipeline);
    stepView->setRenderHint(QPainter::Antialiasing);
    stepView->setObjectName("stepChart");
    pipelineLayout->addWidget(stepView, 2);
    m_tabs->addTab(m_pipeline, tr("Pipeline"));
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::refreshCharts);
    // Pareto: the chart of the last search.
    m_pareto = new QWidget(m_tabs);
    auto* paretoLayout = new QVBoxLayout(m_pareto);
    auto* paretoView = new QChartView(m_pareto);
    paretoView->setRenderHint(QPainter::Antialiasing);
    paretoView->setObjectName("paretoChart");
    paretoLayout->addWidget(paretoView);
    m_tabs->addTab(m_pareto, tr("Pareto"));
    // Candidates: the top strategies, sortable and filterable, with the refusal counts beside them.
    auto* splitter = new QSplitter(m_tabs);
    m_candidates = splitter;
    auto* tablePane = new QWidget(m_candidates);
    auto* tableLayout = new QVBoxLayout(tablePane);
    auto* filter = new QLineEdit(tablePane);
    filter->setPlaceholderText(tr("Filter strategies (any column), e.g. interleaved or ZeRO-2"));
    filter->setClearButtonEnabled(true);
    tableLayout->addWidget(filter);
    m_candidateModel = new CandidatesModel(this);
    m_candidateProxy = new QSortFilterProxyModel(this);
    m_candidateProxy->setSourceModel(m_candidateModel);
    m_candidateProxy->setSortRole(Qt::UserRole);
    m_candidateProxy->setFilterKeyColumn(-1);
    m_candidateProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(filter, &QLineEdit::textChanged, m_candidateProxy, &QSortFilterProxyModel::setFilterFixedString);
    auto* candidates = new QTableView(tablePane);
    candidates->setObjectName("candidateTable");
    candidates->setModel(m_candidateProxy);
    candidates->setSortingEnabled(true);
    candidates->sortByColumn(CandidatesModel::Rank, Qt::AscendingOrder);
    candidates->setSelectionBehavior(QAbstractItemView::SelectRows);
    candidates->verticalHeader()->hide();
    candidates->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(candidates, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        pickCandidate(m_candidateModel->candidate(m_candidateProxy->mapToSource(index).row()));
    });
    tableLayout->addWidget(candidates);
    m_refusals = textView(m_candidates);
    m_refusals->setObjectName("refusals");
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    m_tabs->addTab(m_candidates, tr("Candidates"));
    m_estimateText = textView(m_tabs);
    m_tabs->addTab(m_estimateText, tr("Estimate"));
    m_scenarioText = textView(m_tabs);
    m_tabs->addTab(m_scenarioText, tr("Scenario"));
    // The forms on the left, the views on the right (UI.md); an edit re-evaluates
    // after a short pause, so typing a number costs one evaluation, not one per key.
    m_editor = new ScenarioEditor(this);
    auto* split = new QSplitter(this);
    split->addWidget(m_editor);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({330, 950});
    setCentralWidget(split);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(15);  // coalesces bursts of edits; keystrokes are further apart
    connect(m_editor, &ScenarioEditor::changed, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, &MainWindow::evaluateForms);
    m_autosave = new QTimer(this);
    m_autosave->setSingleShot(true);
    m_autosave->setInterval(3000);  // at most three seconds of typing lost to a crash
    connect(m_autosave, &QTimer::timeout, this, &MainWindow::autosave);
    m_figures = new QLabel(this);
    statusBar()->addPermanentWidget(m_figures);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(180);
    m_progress->setVisible(false);
    statusBar()->addPermanentWidget(m_progress);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelSearch);

    m_search = new SearchController(this);
    connect(m_search, &SearchController::progress, this, [this](double fraction, qulonglong n, const QString& best) {
        m_progress->setValue(int(fraction * 1000));
        statusBar()->showMessage(tr("Searching: %1 candidates%2").arg(QLocale().toString(n))
                                     .arg(best.isEmpty() ? QString() : tr(" · best so far %1").arg(best)));
    });
    connect(m_search, &SearchController::finished, this, &MainWindow::showSearch);
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario or config.json"), m_path,
                                                          tr("Scenarios and configs (*.yaml *.yml *.json);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &as…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("Export view as &PNG…"), this, &MainWindow::exportViewPng);
    file->addAction(tr("&Copy view"), QKeySequence::Copy, this, &MainWindow::copyView);
    file->addAction(tr("Export &train.yaml…"), this, &MainWindow::exportTrainYaml);
    file->addAction(tr("Export review &PDF…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export review PDF"), QStringLiteral("review.pdf"), tr("PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !writeReport(*this, path, &error)) QMessageBox::warning(this, tr("Not exported"), error);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    rebuildRecentMenu();
    auto* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_editor->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_editor->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    setAcceptDrops(true);
    connect(m_editor, &ScenarioEditor::changed, this, [this] { setDirty(true); });

    auto* toolbar = addToolBar(tr("Search"));
    toolbar->setObjectName("searchToolbar");
    auto* pin = toolbar->addAction(tr("Pin baseline"), this, [this] { hasBaseline() ? unpinBaseline() : pinBaseline(); });
    pin->setObjectName("pinBaseline");
    pin->setCheckable(true);
    pin->setToolTip(tr("Compare every later edit with the strategy shown now"));
    auto* searchAction = toolbar->addAction(tr("Search ▶"), this, &MainWindow::startSearch);
    searchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    searchAction->setToolTip(tr("Search the strategy space of this scenario on a worker thread (Ctrl+R)"));
    resize(1280, 820);
    if (restore) restoreSession();
    // No file named: reopen the last one, else the built-in default scenario.
    const QString last = restore ? QSettings().value("session/path").toString() : QString();
    const QString path = !scenarioPath.isEmpty() ? scenarioPath : QFileInfo::exists(last) ? last : QString();
    load(path);
    if (!path.isEmpty() && QFileInfo::exists(path)) m_path = QFileInfo(path).absoluteFilePath();
}

void MainWindow::refreshCharts() {
    if (!m_estimate || !m_resolved) return;
    const core::Estimate* baseline = m_baseline ? &*m_baseline : nullptr;
    auto replace = [](QChartView* view, QChart* chart) {
        QChart* old = view->chart();
        view->setChart(chart);
        delete old;
    };
    if (m_memoryChartStale && m_tabs->currentWidget() == m_memory) {
        replace(m_memory->findChild<QChartView*>("memoryChart"), buildMemoryChart(*m_estimate, baseline));
        m_memoryChartStale = false;
    }
    if (m_stepChartStale && m_tabs->currentWidget() == m_pipeline) {
        replace(m_pipeline->findChild<QChartView*>("stepChart"), buildStepChart(*m_estimate, m_resolved->scenario.exec.micro_batch_num.value_or(1), baseline));
        m_stepChartStale = false;
    }
}

QWidget* MainWindow::view(const QString& name) const {
    if (name == "memory") return m_memory;
    if (name == "pipeline") return m_pipeline;
    if (name == "pareto") return m_pareto;
    if (name == "candidates") return m_candidates;
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
    const QString title = scenarioPath.isEmpty() ? QString::fromLatin1(kDefaultScenario) : QFileInfo(scenarioPath).fileName();
    setWindowTitle(tr("%1[*] - Tessera").arg(title));
    try {
        m_scenario = scenarioPath.isEmpty() ? presetScenario(kDefaultScenario) : loadScenarioOrPreset(scenarioPath.toStdString());
    } catch (const FileError& e) {
        m_unreadable = QString::fromStdString(e.what());
        showProblems(e);
        return;
    } catch (const SpecError& e) {
        showProblems(e);
        return;
    }
    m_editor->setScenario(*m_scenario);
    evaluate(*m_scenario);
}

void MainWindow::evaluateForms() {
    std::vector<core::Diagnostic> problems;
    std::optional<core::Scenario> edited = m_editor->scenario(problems);
    if (edited) {
        try {
            const core::ResolvedScenario r = core::resolve(*edited);
            const core::Estimate e = core::estimate(r);
            m_resolved = r;
            showEstimate(r, e);
            m_scenario = edited;
            m_loaded = true;
        } catch (const core::SpecError& error) {
            problems = error.diagnostics();
        }
    }
    m_editor->markProblems(problems);
    if (!problems.empty())  // the views keep the last scenario that worked
        statusBar()->showMessage(tr("%n problem(s): %1", nullptr, int(problems.size())).arg(QString::fromStdString(problems.front().text())));
    else statusBar()->clearMessage();
    emit evaluated();
}

int MainWindow::debounceMs() const { return m_debounce->interval(); }

void MainWindow::evaluate(const core::Scenario& scenario) {
    using namespace tessera::core;
    try {
        const ResolvedScenario r = resolve(scenario);
        const Estimate e = estimate(r);
        m_resolved = r;
        showEstimate(r, e);
        m_loaded = true;
    } catch (const SpecError& e) {
        showProblems(e);
    }
}

void MainWindow::showProblems(const core::SpecError& e) {
    const QString problems = tr("This scenario cannot be used:\n\n%1").arg(QString::fromStdString(e.what()));
    m_scenarioText->setPlainText(problems);
    m_estimateText->setPlainText(problems);
    m_tabs->setCurrentWidget(m_scenarioText);
    statusBar()->showMessage(tr("%n problem(s)", nullptr, static_cast<int>(e.diagnostics().size())));
    m_loaded = false;
}

void MainWindow::showEstimate(const core::ResolvedScenario& r, const core::Estimate& e) {
    m_scenarioText->setPlainText(QString::fromStdString(core::showText(r)));
    m_estimateText->setPlainText(QString::fromStdString(core::estimateText(r, e)));
    m_stageModel->setEstimate(e);
    m_estimate = e;  // the strategy in the views (e may be *m_estimate itself: a re-show)
    // The charts take most of an edit's time: only the shown tab's is rebuilt now,
    // the other when its tab is opened (refreshCharts).
    m_memoryChartStale = m_stepChartStale = true;
    refreshCharts();
    // The pipeline as the schedule runs it. The title gives the hatched share over all
    // stages (the simulation's); the estimate's bubble is the slowest stage's idle time.
    const core::ExecSpec& exec = r.scenario.exec;
    try {
        const core::PipelineResult pipeline =
            core::simulatePipeline(core::pipelineInputFor(e, *exec.pp_schedule, int(*exec.vpp), int(*exec.micro_batch_num)));
        m_timeline->setPipeline(pipeline);
        m_timeline->setMaximumHeight(std::max(m_timeline->minimumSizeHint().height(), m_timeline->naturalHeight()));
        const QString versus = m_baseline ? tr(" (baseline %1)").arg(QString::fromStdString(core::formatSeconds(m_baseline->stepSeconds)))
                                          : QString();
        m_timeline->setTitle(tr("idle %1 % of all stages' time (bubble on the slowest stage %2 %) · step %3%4")
                                 .arg(pipeline.bubbleFraction * 100, 0, 'f', 1).arg(e.bubbleFraction * 100, 0, 'f', 1)
                                 .arg(QString::fromStdString(core::formatSeconds(e.stepSeconds)), versus));
    } catch (const core::SpecError&) {
        m_timeline->setPipeline({});  // a schedule the simulator cannot run
    }
    const core::StageEstimate& peak = e.stages[std::size_t(e.peakStage)];
    m_summary->setText(tr("Stage %1: %2 of %3 GiB · activations %4 GiB (%5 %)%6")
                           .arg(peak.stage).arg(gib(peak.memory.total())).arg(gib(e.deviceMemory))
                           .arg(gib(peak.memory.activations))
                           .arg(100.0 * double(peak.memory.activations) / double(peak.memory.total()), 0, 'f', 1)
                           .arg(e.fits ? QString() : tr(" · does not fit")));
    const QString fits = e.fits ? QStringLiteral("✓") : tr("over");
    // With a pinned baseline, every figure carries its difference.
    auto delta = [this](double now, double then, const QString& unit, int decimals) {
        if (!m_baseline) return QString();
        const double d = now - then;
        return QStringLiteral(" (%1%2%3)").arg(d >= 0 ? "+" : "−").arg(std::abs(d), 0, 'f', decimals).arg(unit);
    };
    const QString stepDelta = m_baseline ? delta(e.stepSeconds, m_baseline->stepSeconds, " s", 2) : QString();
    const QString peakDelta = m_baseline ? delta(double(e.peakMemory) / double(core::GiB),
                                                 double(m_baseline->peakMemory) / double(core::GiB), " GiB", 1) : QString();
    m_figures->setText(tr("step %1%7 · %2 tok/s · MFU %3 % · peak %4%8 / %5 GiB %6")
                           .arg(QString::fromStdString(core::formatSeconds(e.stepSeconds)))
                           .arg(QLocale().toString(qlonglong(std::llround(e.tokensPerSecond))))
                           .arg(e.mfu * 100, 0, 'f', 1).arg(gib(e.peakMemory)).arg(gib(e.deviceMemory)).arg(fits)
                           .arg(stepDelta).arg(peakDelta));
}

}  // namespace tessera::ui
