#pragma once
// The main window: the forms on the left, the views as tabs on the right (Memory,
// Pipeline, Pareto, Candidates, Estimate, Scenario), the key figures in the status
// bar, the menus and the toolbar. It owns the Session - what the window is about -
// and lays out views of it; it holds no scenario, estimate or search of its own.
// Its own work is the window's: files (open, save, recent, drops, the session
// restored on the next start), crash recovery, exports and the status bar.
#include <QMainWindow>

#include "mainwindow/recovery.h"
#include "session/session.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTimer;
class QMenu;

namespace tessera::ui {

class CompareDialog;
class ScenarioEditor;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // An empty path reopens the last session's file (when `restore`), else the
    // embedded default scenario.
    explicit MainWindow(const QString& scenarioPath, QWidget* parent = nullptr, bool restore = true);

    Session& session() { return m_session; }
    // "memory", "pipeline", "pareto", "candidates", "estimate" or "scenario"; false for an unknown name.
    bool showView(const QString& name);
    QWidget* view(const QString& name) const;
    ScenarioEditor* editor() const { return m_editor; }
    // The scenario evaluates as it stands (no problems, no edit waiting).
    bool loaded() const { return m_session.evaluationIsCurrent(); }
    // Why the file given at construction could not be read at all (empty if it could).
    const QString& unreadable() const { return m_session.unreadable(); }

    // Search the scenario on a worker thread (its search section, or the default space).
    void startSearch();
    void cancelSearch();
    SearchController* searchController() const { return m_session.searchController(); }
    // Files: open a scenario (a Hugging Face config.json replaces the model, a
    // HyperParallel train.yaml the run: one undo step each), save atomically; nothing
    // unsaved is lost without asking.
    void openFile(const QString& path);
    bool save();
    bool saveAs();
    bool saveTo(const QString& path);
    bool isDirty() const { return m_session.isModified(); }
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
    // The view (the whole window when null) at `size` with the title block on top,
    // for review screenshots.
    QImage reviewPicture(QWidget* view, QSize size);
    void exportViewPng();
    void copyView();
    void exportTrainYaml();
    void exportReview();
    // File ▸ Compare with…: the current scenario beside another file or preset, in a
    // window that follows the edits (views/comparedialog.h). It closes itself.
    CompareDialog* compareWith(const QString& path);
    // The file name an export proposes ("<scenario>-<what>"), beside the scenario's file.
    QString proposedPath(const QString& what) const;

    // Pin the current estimate as the baseline every view then compares against; unpin.
    void pinBaseline() { m_session.pinBaseline(); }
    void unpinBaseline() { m_session.unpinBaseline(); }
    bool hasBaseline() const { return m_session.baseline() != nullptr; }
    // Load a searched candidate's strategy into the exec section (one undo step).
    void pickCandidate(const core::Candidate& candidate);

    // How long an edit waits for quiet before it is evaluated.
    int debounceMs() const { return m_session.debounceMs(); }

signals:
    void searchFinished();
    // The scenario has been evaluated and the views updated (they repaint next).
    void evaluated();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void newFromPreset();
    void showFigures();
    void showSearchFinished();
    void updateTitle();
    void load(const QString& scenarioPath);
    void autosave();
    QSize resizeForPicture(QSize viewSize);
    bool confirmDiscard();
    void warn(const QString& title, const QString& text);
    void exported(const QString& what, const QString& path);  // says where it went
    void importInto(const QString& path, const core::Value& document);
    bool importTrainerFile(const QString& path);  // a trainer's launch file: imported, or false if it is none
    // A file of another tool's format (config.json, train.yaml, a seed search file),
    // which openFile() imports rather than loads.
    static bool isForeign(const QString& path);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void saveSession() const;
    void restoreSession();

    Session m_session;
    QTabWidget* m_tabs = nullptr;
    QWidget *m_memory = nullptr, *m_pipeline = nullptr, *m_pareto = nullptr, *m_candidates = nullptr;
    QWidget *m_estimateText = nullptr, *m_scenarioText = nullptr;
    ScenarioEditor* m_editor = nullptr;
    QLabel* m_figures = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QMenu* m_recentMenu = nullptr;
    bool m_neverAsk = false;
    RecoveryFile m_recovery;
    QTimer* m_autosave = nullptr;
};

}  // namespace tessera::ui
