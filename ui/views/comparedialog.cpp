#include "views/comparedialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include "io/scenarioio.h"
#include "report/diffreport.h"
#include "session/session.h"
#include "style/palette.h"
#include "style/reviewmode.h"
#include "style/text.h"

namespace tessera::ui {

CompareDialog::CompareDialog(Session& session, const QString& otherPath, QWidget* parent)
    : QDialog(parent), m_session(session), m_otherPath(otherPath) {
    setWindowTitle(tr("Compare with %1 - Tessera").arg(QFileInfo(otherPath).fileName()));
    auto* layout = new QVBoxLayout(this);
    m_state = new QLabel(this);
    m_state->setWordWrap(true);
    layout->addWidget(m_state);
    m_text = new QPlainTextEdit(this);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(fixedFont());
    layout->addWidget(m_text, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    layout->addWidget(buttons);
    resize(1000, 640);

    // B is read once: it is a file on disk (or a preset), not the document being edited.
    try {
        std::string baseDir;
        const std::string id = otherPath.toStdString();
        const core::Value document = core::scenarioDocument(id, &baseDir);
        const bool isFile = QFileInfo::exists(otherPath);
        auto other = std::make_unique<Other>();
        other->resolved = core::resolve(core::scenarioFromValue(document, isFile ? id : "<preset:scenarios/" + id + ">", baseDir));
        other->estimate = core::estimate(other->resolved);
        m_other = std::move(other);
    } catch (const core::FileError& e) {
        m_otherProblem = tr("%1 could not be read: %2").arg(otherPath, qs(e.what()));
    } catch (const core::SpecError& e) {
        QStringList lines;
        for (const core::Diagnostic& d : e.diagnostics()) lines << qs(d.text());
        m_otherProblem = tr("%1 does not resolve, so there is nothing to compare:\n%2").arg(otherPath, lines.join(QLatin1Char('\n')));
    } catch (const std::exception& e) {
        m_otherProblem = tr("%1 could not be read: %2").arg(otherPath, qs(e.what()));
    }
    connect(&m_session, &Session::evaluated, this, &CompareDialog::refresh);
    refresh();
}

QString CompareDialog::text() const { return m_text->toPlainText(); }

void CompareDialog::refresh() {
    if (!m_other) {
        m_state->setText(tr("⚠ Nothing to compare"));
        m_state->setStyleSheet(colours::unpricedLabel());
        m_text->setPlainText(m_otherProblem);
        return;
    }
    if (!m_session.evaluationIsCurrent() || !m_session.evaluation()) {
        // Never the comparison of a scenario no longer on screen.
        m_state->setText(tr("⚠ Not compared: the current scenario has %1; the comparison returns when it resolves.")
                             .arg(problemCount(m_session.problems().size())));
        m_state->setStyleSheet(colours::unpricedLabel());
        m_text->clear();
        return;
    }
    const core::Evaluation& now = *m_session.evaluation();
    const std::string nameA = m_session.title().toStdString() + " (current)";
    const core::DiffSide a{nameA, &now.resolved, &now.estimate}, b{m_otherPath.toStdString(), &m_other->resolved, &m_other->estimate};
    const core::ScenarioDiff d = core::diffScenarios(a, b);
    m_state->setText(tr("A is the scenario in the window, compared as you edit it; B is %1 as it was read.").arg(m_otherPath));
    m_state->setStyleSheet(QString());
    const int scroll = m_text->verticalScrollBar() ? m_text->verticalScrollBar()->value() : 0;
    m_text->setPlainText(qs(core::diffText(a, b, d)));
    m_text->verticalScrollBar()->setValue(scroll);  // an edit keeps the reader's place
}

}  // namespace tessera::ui
