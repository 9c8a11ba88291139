#pragma once
// File ▸ Compare with…: the current scenario (A) beside another file or preset (B),
// every field that differs and every figure that moves (core/report/diffreport.h, the
// same text `tessera diff` prints). It follows the session: each evaluation redraws it,
// and while the current scenario does not resolve it says so rather than show the
// comparison of a scenario that is no longer on screen.
#include <QDialog>
#include <memory>
#include <string>

#include "model/estimate.h"
#include "resolve/resolve.h"

class QLabel;
class QPlainTextEdit;

namespace tessera::ui {

class Session;

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    CompareDialog(Session& session, const QString& otherPath, QWidget* parent = nullptr);

    // What the dialog shows now (for tests and Copy).
    QString text() const;
    // Whether B read and resolved; otherwise text() says why.
    bool otherResolved() const { return m_other != nullptr; }

private:
    void refresh();

    struct Other {
        core::ResolvedScenario resolved;
        core::Estimate estimate;
    };
    Session& m_session;
    QString m_otherPath;
    std::unique_ptr<Other> m_other;
    QString m_otherProblem;
    QLabel* m_state = nullptr;
    QPlainTextEdit* m_text = nullptr;
};

}  // namespace tessera::ui
