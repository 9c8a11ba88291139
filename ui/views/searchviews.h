#pragma once
// The two views of the Session's last search. Pareto: every kept candidate as a dot,
// the front, the memory limit, the current strategy as a ring and the baseline as a
// square; clicking a dot picks it. Candidates: the top strategies as a sortable,
// filterable table (double-click picks), the search's counts and refusals beside it.
// Both say so when the search ran on an earlier scenario (Session::searchIsStale).
#include "views/lazyview.h"

class QChartView;
class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;

namespace tessera::ui {

class CandidatesModel;
class Session;

// The line a stale search shows above its results; empty while the search is current.
QString staleSearchText(const Session& session);

class ParetoView : public LazyView {
    Q_OBJECT
public:
    explicit ParetoView(Session& session, QWidget* parent = nullptr);

private:
    void update();
    void rebuild() override;

    Session& m_session;
    QLabel* m_stale = nullptr;
    QLabel* m_empty = nullptr;  // the hint while no search has run
    QChartView* m_chart = nullptr;
};

class CandidatesView : public QWidget {
    Q_OBJECT
public:
    explicit CandidatesView(Session& session, QWidget* parent = nullptr);

private:
    void showSearch();

    Session& m_session;
    QLabel* m_stale = nullptr;
    QLabel* m_empty = nullptr;  // the hint while no search has run
    CandidatesModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QPlainTextEdit* m_refusals = nullptr;
};

}  // namespace tessera::ui
