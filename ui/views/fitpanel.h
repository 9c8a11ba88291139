#pragma once
// "Why it does not fit, and what would", beside the Memory view: the term that
// dominates the fullest stage, then the smallest changes that fit (each with its peak
// and step, applied in one click as one undo step), or, for a strategy that fits, the
// nearest faster ones. A view of Session::advice(), priced on a worker: while it is
// being priced the panel says so, and advice of an earlier scenario is never shown.
#include <QFrame>

class QLabel;
class QVBoxLayout;

namespace tessera::ui {

class Session;

class FitPanel : public QFrame {
    Q_OBJECT
public:
    explicit FitPanel(Session& session, QWidget* parent = nullptr);

private:
    void refresh();

    Session& m_session;
    QLabel* m_title = nullptr;
    QLabel* m_dominant = nullptr;
    QWidget* m_list = nullptr;
    QVBoxLayout* m_moves = nullptr;
};

}  // namespace tessera::ui
