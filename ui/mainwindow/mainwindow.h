#pragma once
// The main window: the views of one scenario's estimate as tabs (Memory, Pipeline,
// Estimate, Scenario) and its key figures in the status bar. A scenario that does
// not load shows every problem with it instead. The forms, the search and the
// Pareto view arrive with the rest of the desktop-app issue.
#include <QMainWindow>
#include <memory>

#include "mainwindow/recovery.h"
#include "model/estimate.h"
#include "resolve/resolve.h"
#include "workers/searchcontroller.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QSortFilterProxyModel;
class QLineEdit;
class QTimer;
class QMenu;

namespace tessera::ui {

class StageMemoryModel;
class CandidatesModel;
class ScenarioEditor;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // An empty path reopens the last session's file (when `restore`), else the
    // embedded default scenario.
    explicit MainWindow(const QString& scenarioPath, QWidget* parent = nullptr, bool restore = true);

    // "memory", "pipeline", "pareto", "candidates", "estimate" or "scenario"; false for an unknown name.
    bool showView(const QString& name);
    QWidget* view(const QString& name) const;
    ScenarioEditor* editor() const { return m_editor; }
    bool loaded() const { return m_loaded; }
    // Why the file given at construction could not be read at all (empty if it could).
    const QString& unreadable() const { return m_unreadable; }

    // Search the scenario on a worker thread (its search section, or every dimension).
    void startSearch();
    void cancelSearch();
    SearchController* searchController() const { return m_search; }
    // Files: open a scenario (or a Hugging Face config.json as the model), save
    // atomically; both ask before anything unsaved is lost.
    void openFile(const QString& path);
    bool save();
    bool saveAs();
    bool saveTo(const QString& path);
    bool isDirty() const { return m_dirty; }
    // Tests and headless runs: never ask.
    void setNeverAsk(bool never) { m_neverAsk = never; }

    // Crash recovery: unsaved changes go to a recovery file `interval` ms after the
    // first edit since the last write; offerRecovery() asks about the files a dead
    // process left (the app calls it once the window is shown).
    void setAutosaveInterval(int ms);
    QString recoveryPath() const { return m_recovery.documentPath(); }
    void offerRecovery();
    bool restoreRecovery(const Recovery& recovery);

    // Pictures of the current view: rendered at `size` (the view's own when invalid)
    // and `pixelRatio`; exported as PNG, copied to the clipboard.
    QImage renderView(QSize size, double pixelRatio);
    void exportViewPng();
    void copyView();
    void exportTrainYaml();

    // Pin the current estimate as the baseline every view then compares against; unpin.
    void pinBaseline();
    void unpinBaseline();
    bool hasBaseline() const { return m_baseline.has_value(); }
    // Load a searched candidate's strategy into the views.
    void pickCandidate(const core::Candidate& candidate);

    // How long an edit waits for quiet before it is evaluated.
    int debounceMs() const;

signals:
    void searchFinished();
    // An edit of the forms has been evaluated and the views updated (they repaint next).
    void evaluated();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void load(const QString& scenarioPath);
    void setDirty(bool dirty);
    void autosave();
    QSize resizeForPicture(QSize viewSize);
    bool confirmDiscard();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void saveSession() const;
    void restoreSession();
    void evaluate(const core::Scenario& scenario);
    void evaluateForms();  // the debounced re-evaluation of an edit
    void showProblems(const core::SpecError& e);
    void showEstimate(const core::ResolvedScenario& r, const core::Estimate& e);
    void showSearch(std::shared_ptr<const SearchOutcome> outcome);
    void refreshCharts();  // rebuild the shown tab's chart if an edit left it stale

    QTabWidget* m_tabs = nullptr;
    QWidget* m_memory = nullptr;
    QWidget* m_pipeline = nullptr;  // the timeline above the step's breakdown
    class TimelineWidget* m_timeline = nullptr;
    QPlainTextEdit* m_estimateText = nullptr;
    QPlainTextEdit* m_scenarioText = nullptr;
    QTableView* m_stageTable = nullptr;
    StageMemoryModel* m_stageModel = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_figures = nullptr;
    QWidget* m_pareto = nullptr;
    QWidget* m_candidates = nullptr;
    CandidatesModel* m_candidateModel = nullptr;
    QSortFilterProxyModel* m_candidateProxy = nullptr;
    QPlainTextEdit* m_refusals = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    SearchController* m_search = nullptr;
    ScenarioEditor* m_editor = nullptr;
    QTimer* m_debounce = nullptr;
    std::optional<core::Scenario> m_scenario;  // as loaded
    std::optional<core::Estimate> m_estimate;   // of the strategy in the views
    std::optional<core::Estimate> m_baseline;   // pinned for comparison
    std::optional<core::ResolvedScenario> m_resolved;
    bool m_memoryChartStale = false, m_stepChartStale = false;
    bool m_loaded = false;
    QString m_unreadable;
    QString m_path;
    bool m_dirty = false, m_neverAsk = false;
    QMenu* m_recentMenu = nullptr;
    RecoveryFile m_recovery;
    QTimer* m_autosave = nullptr;
};

}  // namespace tessera::ui
