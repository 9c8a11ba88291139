#include "mainwindow/mainwindow.h"

#include <QAction>
#include <QInputDialog>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include "export/report.h"
#include "forms/fieldreference.h"
#include "forms/scenarioeditor.h"
#include "io/presets.h"
#include "io/calibrationio.h"
#include "style/palette.h"
#include "style/reviewmode.h"
#include "style/text.h"
#include "views/comparedialog.h"
#include "views/memoryview.h"
#include "views/notcurrentcover.h"
#include "views/pipelineview.h"
#include "views/searchviews.h"
#include "views/textview.h"

namespace tessera::ui {

MainWindow::MainWindow(const QString& scenarioPath, QWidget* parent, bool restore) : QMainWindow(parent) {
    m_tabs = new QTabWidget(this);
    m_memory = new MemoryView(m_session, m_tabs);
    m_tabs->addTab(m_memory, tr("Memory"));
    m_pipeline = new PipelineView(m_session, m_tabs);
    m_tabs->addTab(m_pipeline, tr("Pipeline"));
    m_pareto = new ParetoView(m_session, m_tabs);
    m_tabs->addTab(m_pareto, tr("Pareto"));
    m_candidates = new CandidatesView(m_session, m_tabs);
    m_tabs->addTab(m_candidates, tr("Candidates"));
    m_estimateText = new TextView(TextView::Estimate, m_session, m_tabs);
    m_tabs->addTab(m_estimateText, tr("Estimate"));
    m_scenarioText = new TextView(TextView::Scenario, m_session, m_tabs);
    m_tabs->addTab(m_scenarioText, tr("Scenario"));
    // While the scenario does not resolve, every view of its evaluation is covered (faded, with the problems).
    for (QWidget* v : {m_memory, m_pipeline, m_estimateText}) new NotCurrentCover(m_session, v);
    // The forms on the left, the views on the right (UI.md).
    m_editor = new ScenarioEditor(m_session, this);
    auto* split = new QSplitter(this);
    split->addWidget(m_editor);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({400, 880});
    setCentralWidget(split);

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

    // Views first, then the window: by the time evaluated() is out, every view has its new values.
    connect(&m_session, &Session::evaluated, this, [this] {
        showFigures();
        emit evaluated();
    });
    connect(&m_session, &Session::baselineChanged, this, &MainWindow::showFigures);
    connect(&m_session, &Session::searchProgress, this, [this](double fraction, qulonglong n, const QString& best) {
        m_progress->setValue(int(fraction * 1000));
        statusBar()->showMessage(tr("Searching: %1 candidates%2").arg(QLocale().toString(n))
                                     .arg(best.isEmpty() ? QString() : tr(" · best so far %1").arg(best)));
    });
    connect(&m_session, &Session::searchStarted, this, [this] {  // from Search ▶ or a stale view's "Search again"
        m_progress->setValue(0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
    });
    connect(&m_session, &Session::searchFinished, this, &MainWindow::showSearchFinished);
    connect(&m_session, &Session::modifiedChanged, this, [this](bool modified) {
        setWindowModified(modified);
        if (!modified) {
            m_autosave->stop();
            m_recovery.discard();  // saved, or back to what was: nothing to recover
        } else if (!m_autosave->isActive()) {
            m_autosave->start();
        }
    });
    connect(&m_session, &Session::documentChanged, this, [this] {
        // Not restarted by later edits: at most one interval of typing is lost.
        if (m_session.isModified() && !m_autosave->isActive()) m_autosave->start();
    });
    connect(&m_session, &Session::planned, this, [this](const QString& summary) { statusBar()->showMessage(summary, 10000); });
    connect(&m_session, &Session::picked, this, [this](const QString& label) {
        statusBar()->showMessage(tr("Picked %1 (Edit ▸ Undo returns to the strategy before)").arg(label), 8000);
    });
    buildMenus();
    setAcceptDrops(true);
    resize(1280, 820);
    if (restore) restoreSession();
    // No file named: reopen the last one, else the built-in default scenario.
    const QString last = restore ? QSettings().value(QStringLiteral("session/path")).toString() : QString();
    // Another tool's file named on the command line is imported, as File ▸ Open imports it.
    const bool foreign = !scenarioPath.isEmpty() && isForeign(scenarioPath);
    load(!scenarioPath.isEmpty() && !foreign ? scenarioPath : QFileInfo::exists(last) ? last : QString());
    if (foreign) openFile(scenarioPath);
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New from preset…"), QKeySequence::New, this, &MainWindow::newFromPreset);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario or config.json"), m_session.filePath(),
                                                          tr("Scenarios and configs (*.yaml *.yml *.json);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &as…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addAction(tr("Compare &with…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Compare the scenario with"), m_session.filePath(),
                                                          tr("Scenarios (*.yaml *.yml);;All files (*)"));
        if (!path.isEmpty()) compareWith(path);
    });
    file->addSeparator();
    file->addAction(tr("Export view as &PNG…"), this, &MainWindow::exportViewPng);
    file->addAction(tr("&Copy view"), QKeySequence::Copy, this, &MainWindow::copyView);
    file->addAction(tr("Export &train.yaml…"), this, &MainWindow::exportTrainYaml);
    file->addAction(tr("Export review &PDF…"), this, &MainWindow::exportReview);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    rebuildRecentMenu();
    auto* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_session.undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = m_session.undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);  // every binding: Ctrl+Y and Ctrl+Shift+Z
    edit->addAction(undo);
    edit->addAction(redo);

    // View: each tab on Ctrl+1..6.
    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction* a = viewMenu->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }

    auto* toolbar = addToolBar(tr("Search"));
    toolbar->setObjectName(QStringLiteral("searchToolbar"));
    toolbar->addWidget(m_editor->topBar());  // Model ▾ Device ▾ device count (UI.md's top bar)
    toolbar->addSeparator();
    auto* pin = toolbar->addAction(tr("Pin baseline"), this, [this] { hasBaseline() ? unpinBaseline() : pinBaseline(); });
    pin->setObjectName(QStringLiteral("pinBaseline"));
    pin->setCheckable(true);
    pin->setToolTip(tr("Compare every later edit with the strategy shown now"));
    connect(&m_session, &Session::baselineChanged, pin, [this, pin] { pin->setChecked(hasBaseline()); });
    auto* searchAction = toolbar->addAction(tr("Search ▶"), this, &MainWindow::startSearch);
    searchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    searchAction->setToolTip(tr("Search the strategy space of this scenario on a worker thread (Ctrl+R)"));
    auto* planAction = toolbar->addAction(tr("Plan"), this, [this] { m_session.plan(); });
    planAction->setObjectName(QStringLiteral("planStrategy"));
    planAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    planAction->setToolTip(tr("Plan inside this strategy (Ctrl+P): the layers each stage holds and what each layer "
                              "recomputes, fastest within the memory budget; written into the exec section as one undo step"));
    auto* offloadAction = toolbar->addAction(tr("Plan + offload"), this, [this] { m_session.plan(true); });
    offloadAction->setObjectName(QStringLiteral("planWithOffload"));
    offloadAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    offloadAction->setToolTip(tr("Plan as Plan does, and let each stage offload its first layers' activations to the "
                                 "host over the device's host link (Ctrl+Shift+P; 1f1b, one chunk per stage)"));

    auto* searchMenu = menuBar()->addMenu(tr("&Search"));
    searchMenu->addAction(searchAction);
    searchMenu->addAction(tr("&Cancel search"), this, &MainWindow::cancelSearch);
    searchMenu->addSeparator();
    searchMenu->addAction(planAction);
    searchMenu->addAction(offloadAction);
    searchMenu->addSeparator();
    searchMenu->addAction(pin);

    auto* help = menuBar()->addMenu(tr("&Help"));
    QAction* reference = help->addAction(tr("&Field reference"), this, [this] { showFieldReference(this); });
    reference->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Tessera"), this, [this] { showAbout(this); });
}

void MainWindow::newFromPreset() {
    QStringList ids;
    for (const core::PresetInfo& p : core::listPresets(core::PresetKind::Scenario)) ids << qs(p.id);
    bool ok = false;
    const QString id = QInputDialog::getItem(this, tr("New from preset"), tr("Built-in scenario:"), ids, 0, false, &ok);
    if (!ok || id.isEmpty() || !confirmDiscard()) return;
    load(id);
}

QWidget* MainWindow::view(const QString& name) const {
    const std::pair<const char*, QWidget*> views[] = {{"memory", m_memory},         {"pipeline", m_pipeline},
                                                      {"pareto", m_pareto},         {"candidates", m_candidates},
                                                      {"estimate", m_estimateText}, {"scenario", m_scenarioText}};
    for (const auto& [key, widget] : views)
        if (name == QLatin1String(key)) return widget;
    return nullptr;
}

bool MainWindow::showView(const QString& name) {
    QWidget* w = view(name);
    if (!w) return false;
    m_tabs->setCurrentWidget(w);
    return true;
}

void MainWindow::updateTitle() { setWindowTitle(tr("%1[*] - Tessera").arg(m_session.title())); }

void MainWindow::load(const QString& scenarioPath) {
    m_session.load(scenarioPath);
    updateTitle();
    if (!m_session.evaluation()) m_tabs->setCurrentWidget(m_scenarioText);  // it says what is wrong
}

namespace {
// What a capacity review compares: the days for the token budget when one is stated,
// and GPU-hours per trillion tokens always.
QString trainText(const core::Estimate& e) {
    QString text = QObject::tr(" · %1 GPU-h / T tokens").arg(countText(e.gpuHoursPerTrillionTokens));
    if (e.trainDays)
        text += QObject::tr(" · %1 for %2 tokens").arg(qs(core::formatDays(*e.trainDays)), qs(core::shortCount(*e.trainTokens)));
    return text;
}
}  // namespace

void MainWindow::showFigures() {
    const std::vector<core::Diagnostic>& problems = m_session.problems();
    if (!problems.empty()) {
        const core::Diagnostic& first = problems.front();
        const QString where = first.path.empty() ? qs(first.mark.text()) : qs(first.path);
        QString text = tr("⚠ %1: %2").arg(problemCount(problems.size()), where + QStringLiteral(": ") + qs(first.message));
        for (const ProblemFix& fix : m_session.fixes())
            if (fix.problem == 0) text += tr(" · fix: %1").arg(fix.text);
        statusBar()->showMessage(text);
    } else if (statusBar()->currentMessage().contains(tr("problem"))) {
        statusBar()->clearMessage();
    }
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) return m_figures->clear();
    const core::Estimate& e = evaluation->estimate;
    const core::Estimate* base = m_session.baseline() ? &m_session.baseline()->estimate : nullptr;
    // With a pinned baseline, every figure carries its difference.
    QString stepDelta, peakDelta, tokensDelta, mfuDelta;
    if (base) {
        const double d = e.stepSeconds - base->stepSeconds;
        stepDelta = QStringLiteral(" (%1%2 s)").arg(d >= 0 ? QStringLiteral("+") : QStringLiteral("−")).arg(std::abs(d), 0, 'f', 2);
        peakDelta = QStringLiteral(" (%1 GiB)").arg(gibDeltaText(e.peakMemory, base->peakMemory));
        const double t = e.tokensPerSecond - base->tokensPerSecond, m = (e.mfu - base->mfu) * 100;
        tokensDelta = QStringLiteral(" (%1%2)").arg(t >= 0 ? QStringLiteral("+") : QStringLiteral("−"),
                                                   countText(std::abs(t)));
        mfuDelta = QStringLiteral(" (%1%2 pt)").arg(m >= 0 ? QStringLiteral("+") : QStringLiteral("−")).arg(std::abs(m), 0, 'f', 1);
    }
    const bool current = m_session.notCurrentNote().isEmpty();
    m_figures->setStyleSheet(current ? QString() : colours::unpricedLabel());
    m_figures->setText((current ? QString() : tr("last that priced: ")) +
                       tr("step %1%7 · %2%9 tok/s · MFU %3 %%10 · peak %4%8 / %5 GiB %6")
                           .arg(secondsText(e.stepSeconds), countText(e.tokensPerSecond))
                           .arg(e.mfu * 100, 0, 'f', 1)
                           .arg(gibText(e.peakMemory), gibText(e.deviceMemory), e.fits ? QStringLiteral("✓") : tr("over"),
                                stepDelta, peakDelta, tokensDelta, mfuDelta) +
                       trainText(e) + QStringLiteral(" · ") + qs(core::calibrationStatus(evaluation->resolved.scenario.calibration)));
}

CompareDialog* MainWindow::compareWith(const QString& path) {
    auto* dialog = new CompareDialog(m_session, path, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void MainWindow::startSearch() { m_session.startSearch(); }

void MainWindow::cancelSearch() {
    m_session.cancelSearch();
    statusBar()->showMessage(tr("Search cancelled"), 3000);
}

void MainWindow::showSearchFinished() {
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    const auto& outcome = m_session.search();
    if (!outcome->error.isEmpty()) {
        statusBar()->showMessage(tr("Search failed: %1").arg(outcome->error), 8000);
    } else {
        const core::SearchResult& r = outcome->result;
        statusBar()->showMessage(tr("Search done: %1 of %2 candidates fit%3")
                                     .arg(QLocale().toString(qulonglong(r.feasible)), QLocale().toString(qulonglong(r.spaceSize)),
                                          r.cancelled ? tr(" (cancelled)") : QString()),
                                 8000);
    }
    emit searchFinished();
}

void MainWindow::pickCandidate(const core::Candidate& candidate) { m_session.pick(candidate); }

QImage MainWindow::reviewPicture(QWidget* view, QSize size) {
    QWidget* target = view ? view : this;
    const QFont head = reviewFont(10, true), body = reviewFont(9);
    const int lineHeight = QFontMetrics(body).height();
    const int strip = 3 * lineHeight + 12;
    // The view gets what the title block leaves of the asked size.
    resize(size.width(), std::max(100, size.height() - strip) + (view ? height() - view->height() : 0));
    target->resize(size.width(), size.height() - strip);
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    const QStringList lines = m_session.evaluation() ? titleBlock(reviewOf(m_session)) : QStringList{m_session.title()};
    int y = 6 + QFontMetrics(head).ascent();
    for (int i = 0; i < lines.size(); ++i) {
        p.setFont(i == 0 ? head : body);
        p.setPen(i == 0 ? Qt::black : QColor(60, 60, 60));
        p.drawText(10, y, lines[i]);
        y += lineHeight;
    }
    p.setPen(QColor(200, 200, 200));
    p.drawLine(0, strip - 1, size.width(), strip - 1);
    target->render(&p, QPoint(0, strip));
    return image;
}

}  // namespace tessera::ui
