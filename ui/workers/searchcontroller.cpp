#include "workers/searchcontroller.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::ui {

SearchController::SearchController(QObject* parent) : QObject(parent) {
    // A search and the cancelled one it replaced, which ends within a block of work.
    m_pool.setMaxThreadCount(2);
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<const SearchOutcome>>::finished, this, &SearchController::onFinished);
}

SearchController::~SearchController() {
    cancel();
    m_watcher.waitForFinished();
    // A superseded search can be inside its progress callback right now: past its
    // `if (!self)` check and about to post an event to this object. Waiting only for
    // the current search let ~QObject and the free run under that post (a use after
    // free inside Qt, where no sanitizer looks). They were cancelled at the restart
    // and end within a block of work.
    for (auto& future : m_superseded) future.waitForFinished();
    m_pool.waitForDone();  // its threads end with the controller, not with the process
}

void SearchController::cancel() {
    if (m_cancel) m_cancel->store(true);
}

void SearchController::start(const core::Scenario& scenario, int threads) {
    cancel();
    if (!m_watcher.isFinished()) m_superseded.append(m_watcher.future());
    m_superseded.removeIf([](const auto& future) { return future.isFinished(); });
    const quint64 generation = ++m_generation;
    auto flag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = flag;
    if (threads <= 0) threads = std::max(1, QThread::idealThreadCount() - 1);  // leave a core for the GUI
    QPointer<SearchController> self(this);
    // A const copy: the task QtConcurrent builds copies it again (a const member cannot be
    // moved), inside qtconcurrentrun.h, which is the hand-off tsan.supp describes; the
    // worker reads only that copy.
    const core::Scenario searched = scenario;
    m_watcher.setFuture(QtConcurrent::run(&m_pool, [self, searched, threads, flag, generation]() {
        auto outcome = std::make_shared<SearchOutcome>();
        outcome->generation = generation;
        outcome->searched = searched;
        try {
            outcome->setup = core::searchSetup(searched);
            core::SearchOptions options;
            options.threads = threads;
            options.cancel = flag.get();
            options.progress = [self, generation](const core::SearchProgress& p) {
                if (!self) return;  // the controller is gone: nobody to tell
                const QString best = p.best ? QString::fromStdString(p.best->label()) : QString();
                // Queued to the GUI thread; dropped there if a newer search started.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, generation, fraction = p.fraction, n = qulonglong(p.candidates), best] {
                        if (self && self->m_generation == generation) emit self->progress(fraction, n, best);
                    },
                    Qt::QueuedConnection);
            };
            outcome->result = core::runSearch(outcome->setup, options);
        } catch (const core::SpecError& e) {
            outcome->error = QString::fromStdString(e.what());
        }
        return std::shared_ptr<const SearchOutcome>(outcome);
    }));
}

void SearchController::onFinished() {
    const std::shared_ptr<const SearchOutcome> outcome = m_watcher.result();
    if (!outcome || outcome->generation != m_generation) return;  // a stale search: a newer one owns the views
    emit finished(outcome);
}

}  // namespace tessera::ui
