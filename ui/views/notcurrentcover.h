#pragma once
// What a view shows while the scenario does not resolve: its last result faded under
// a card that says "Not evaluated: N problems", each problem in words and, where the
// fix is mechanical, a button that applies it (one undo step). No view pretends: the
// cover lies over every view of the evaluation, laid on by the view itself.
#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace tessera::ui {

class Session;

class NotCurrentCover : public QWidget {
    Q_OBJECT
public:
    // Covers `view` (its child, kept to its size), shown while the session has problems.
    NotCurrentCover(Session& session, QWidget* view);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    void refresh();

    Session& m_session;
    QWidget* m_card = nullptr;
    QLabel* m_title = nullptr;
    QVBoxLayout* m_items = nullptr;
};

}  // namespace tessera::ui
