#pragma once
// Runs the strategy search off the GUI thread (QtConcurrent::run on a member thread
// pool, a member QFutureWatcher) and hands the GUI its progress and its result. Each start() bumps
// a generation counter and cancels the search before it; a result or progress
// report from an older generation is dropped, so a late answer never overwrites a
// newer one. Destroying the controller cancels and waits, so closing the window
// mid-search is clean.
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <memory>

#include "search/search.h"

namespace tessera::ui {

struct SearchOutcome {
    core::Scenario searched;  // as stated, what a pick lays a candidate over
    core::SearchSetup setup;
    core::SearchResult result;
    QString error;  // set instead when the scenario cannot be searched
    quint64 generation = 0;
};

class SearchController : public QObject {
    Q_OBJECT
public:
    explicit SearchController(QObject* parent = nullptr);
    ~SearchController() override;

    // Search `scenario` (its search section, or the default space when that names no
    // axis, as core::searchSetup decides for every front end). Cancels a search still
    // running.
    void start(const core::Scenario& scenario, int threads = 0);
    void cancel();
    bool isRunning() const { return m_watcher.isRunning(); }
    quint64 generation() const { return m_generation; }

signals:
    void progress(double fraction, qulonglong candidates, const QString& best);
    void finished(std::shared_ptr<const tessera::ui::SearchOutcome> outcome);

private:
    void onFinished();

    QThreadPool m_pool;  // first, so it is destroyed last
    QFutureWatcher<std::shared_ptr<const SearchOutcome>> m_watcher;
    // Searches a restart replaced that may still be running: cancelled, no longer
    // watched, but still holding `this` (a QPointer) in their progress callback, so
    // the destructor waits for them too.
    QList<QFuture<std::shared_ptr<const SearchOutcome>>> m_superseded;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_generation = 0;
};

}  // namespace tessera::ui
