#pragma once
// The Estimate and Scenario tabs, views of the Session: what `tessera estimate` and
// `tessera show` print for the evaluation, in the fixed font. A scenario that has
// never evaluated (a file that does not read or is refused) shows every problem
// with it instead.
#include <QPlainTextEdit>

namespace tessera::ui {

class Session;

class TextView : public QPlainTextEdit {
    Q_OBJECT
public:
    enum Kind { Estimate, Scenario };
    TextView(Kind kind, Session& session, QWidget* parent = nullptr);

private:
    void update();

    Kind m_kind;
    Session& m_session;
};

}  // namespace tessera::ui
