#pragma once
// The one owner of what the window is about (KDAB hotspot's parser and its result
// pages are the model): the scenario document, what it evaluates to, the pinned
// baseline and the last search. Everything else in the window - forms, views,
// status bar, exports - is a view of this object: it reads values from it and is
// told when they change; nothing keeps a copy that could drift from it.
//
// The document is the scenario as the user states it (sections expanded, wrong
// values included, exactly what Save writes). It changes through one door,
// setScenario(document, why): a load or a recovery starts a new history; an edit,
// a pick, an import or a model preset is one undo step (ui/commands), and undo and
// redo come back through the same door. The undo stack's clean state is "saved":
// it drives the window's modified mark and the autosave, so undoing back to the
// saved text is unmodified again.
//
// What the document evaluates to is derived, never stored beside it: the scenario
// read (types and ranges), then core::evaluateScenario (resolve, estimate, the
// simulated schedule). Edits are evaluated after a short quiet (typing "128" is one
// evaluation), every other change at once. While the document has problems,
// evaluation() is the last one that worked and evaluationIsCurrent() is false.
#include <QDateTime>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

#include "doc/document.h"
#include "fit/advice.h"
#include "fit/fixes.h"
#include "model/evaluation.h"
#include "workers/searchcontroller.h"

class QUndoStack;

namespace tessera::ui {

// "baseline: <its strategy>, pinned hh:mm", for legends and titles.
QString baselineLabel(const core::Evaluation& baseline, const QDateTime& pinned);

// Why the document changed. Undo is what undo and redo report (the stack's own
// replays); nobody passes it to setScenario.
enum class Change { Load, Edit, Pick, Import, Recovery, Undo };

// A mechanical fix for one of the document's problems: the value a field takes so the
// rule it breaks holds ("set exec.dp to 4 so dp·tp·pp·cp = 64").
struct ProblemFix {
    std::size_t problem = 0;  // index into Session::problems()
    QString text;
    core::Fix fix;  // core/fit/fixes.h: the value, and what it binds
};

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // --- the document -----------------------------------------------------------
    const core::Value& document() const { return m_document; }
    // The file it was loaded from or last saved to; empty for a preset or an untitled one.
    const QString& filePath() const { return m_path; }
    // What a title bar calls it: the file's name, else the preset's id or "Untitled".
    const QString& title() const { return m_title; }
    // The one door. `label` names the undo step ("edit exec.tp"); `mergeKey` lets
    // consecutive edits of one field merge.
    void setScenario(const core::Value& document, Change why, const QString& label = {}, const QString& mergeKey = {});
    // A scenario file or a built-in scenario's id (empty: the default scenario), as a
    // Load. False when the file cannot be read at all (unreadable() says why); a file
    // that reads but is refused loads, with its problems.
    bool load(const QString& pathOrPreset);
    const QString& unreadable() const { return m_unreadable; }
    // Unsaved changes found after a crash: the recovery file's document, unsaved, as
    // an edit of `original` (empty: of an untitled scenario). False when the file
    // cannot be read.
    bool recover(const QString& documentPath, const QString& original);
    void setFilePath(const QString& path);
    // After a save: the document as it stands is what the file holds.
    void markSaved();
    bool isModified() const;
    QUndoStack* undoStack() const { return m_undo; }
    // A short stable hash of the document (its YAML), for title blocks.
    QString hash() const;

    // --- what it evaluates to -----------------------------------------------------
    // The scenario read from the document (field types and ranges), when it reads.
    const std::optional<core::Scenario>& scenario() const { return m_scenario; }
    // The scenario the document states now, read afresh when an edit is still waiting to
    // be evaluated (what an edit builds on must be the document, not the last evaluation).
    std::optional<core::Scenario> statedNow() const;
    const std::shared_ptr<const core::Evaluation>& evaluation() const { return m_evaluation; }
    bool evaluationIsCurrent() const { return m_evaluation && m_problems.empty() && !m_pending.isActive(); }
    const std::vector<core::Diagnostic>& problems() const { return m_problems; }
    // What every view showing evaluation() says while the document has problems (the
    // figures are of the last scenario that priced); empty while they are its own.
    QString notCurrentNote() const;
    // The problems' mechanical fixes (core/fit), and applying one: one undo step.
    const std::vector<ProblemFix>& fixes() const { return m_fixes; }
    void applyFix(std::size_t index);
    void evaluateNow();  // a pending edit's evaluation, without waiting for the quiet
    int debounceMs() const { return m_pending.interval(); }

    // --- why it does not fit, and what would -----------------------------------------
    // core/fit's advice on the current evaluation, priced shortly after it (once the views
    // have repainted and typing pauses); null until then or while the document does not
    // price, so advice of an earlier scenario is never shown as this one's.
    const std::shared_ptr<const core::FitAdvice>& advice() const { return m_advice; }
    bool adviceIsPending() const { return m_adviceTimer.isActive(); }
    // A suggestion's exec section written into the document: one undo step.
    void applySuggestion(const core::Suggestion& suggestion);

    // --- comparing ----------------------------------------------------------------
    void pinBaseline();
    void unpinBaseline();
    const std::shared_ptr<const core::Evaluation>& baseline() const { return m_baseline; }
    const QDateTime& baselinePinned() const { return m_baselinePinned; }
    // What a legend calls it: "baseline: dp 2 · tp 8 · pp 4 ..., pinned 14:02"; empty when none.
    QString baselineLabel() const;

    // --- the search -----------------------------------------------------------------
    // The document's scenario on a worker thread (its search section, or the default
    // space core::searchSetup takes for every front end).
    void startSearch(int threads = 0);
    void cancelSearch();
    bool isSearching() const { return m_searchController->isRunning(); }
    SearchController* searchController() const { return m_searchController; }
    const std::shared_ptr<const SearchOutcome>& search() const { return m_search; }
    // The search was run on other inputs than the document's now: model, cluster,
    // search section or run settings changed since (a pick changes none of them).
    bool searchIsStale() const;
    // What changed since the search ran, in words ("model.num_layers 80 → 40"), first
    // changes first; empty while it is current.
    QStringList searchStaleSince(int most = 3) const;
    // A candidate's strategy laid over the exec section (core::execFor): one undo step.
    void pick(const core::Candidate& candidate);

    // --- planning inside the strategy ------------------------------------------------
    // Plans the current strategy (core/plan: layers per stage, each layer's recompute)
    // and, when a plan fits, writes its pp_partition and recompute ranges into the exec
    // section as one undo step. Says what happened in words (planned() carries it too);
    // nothing changes when the document does not price or no plan fits. `offload`: each
    // stage may also offload its first layers' activations (tessera plan --offload).
    QString plan(bool offload = false);

signals:
    void documentChanged(tessera::ui::Change why);
    void evaluated();
    void baselineChanged();
    void searchStarted();
    void searchProgress(double fraction, qulonglong candidates, const QString& best);
    void searchFinished();
    void modifiedChanged(bool modified);
    void picked(const QString& label);  // a candidate's strategy is now the exec section
    void planned(const QString& summary);  // plan() ran: what it did, in words
    void adviceChanged();

private:
    void apply(const core::Value& document, Change why);
    void startHistory(const core::Value& document, Change why);

    core::Value m_document;
    QString m_path, m_title, m_unreadable;
    std::string m_baseDir;  // where relative file references of a loaded file resolve
    QUndoStack* m_undo = nullptr;
    QTimer m_pending;  // an edit waiting for quiet before it is evaluated
    std::optional<core::Scenario> m_scenario;
    std::shared_ptr<const core::Evaluation> m_evaluation;
    std::vector<core::Diagnostic> m_problems;
    std::vector<ProblemFix> m_fixes;
    std::shared_ptr<const core::FitAdvice> m_advice;
    QTimer m_adviceTimer;
    void startAdvice();
    void priceAdvice();
    std::shared_ptr<const core::Evaluation> m_baseline;
    QDateTime m_baselinePinned;
    SearchController* m_searchController = nullptr;
    std::shared_ptr<const SearchOutcome> m_search;
    core::Value m_searchInputs;  // the document the search ran on, strategy keys left out
};

}  // namespace tessera::ui
