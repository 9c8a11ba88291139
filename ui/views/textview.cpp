#include "views/textview.h"

#include "report/estimatereport.h"
#include "report/showreport.h"
#include "session/session.h"
#include "style/reviewmode.h"
#include "style/text.h"

namespace tessera::ui {

TextView::TextView(Kind kind, Session& session, QWidget* parent) : QPlainTextEdit(parent), m_kind(kind), m_session(session) {
    setReadOnly(true);
    setFont(fixedFont());
    // The estimate's prose lines (the step's notes, the faster strategies' moves) run past
    // any window: they wrap at the view's edge rather than hide behind a scroll bar. Its
    // tables are narrower than the view at the window's default size. The scenario
    // listing keeps one key a line.
    setLineWrapMode(m_kind == Estimate ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    connect(&m_session, &Session::evaluated, this, &TextView::update);
    if (m_kind == Estimate) connect(&m_session, &Session::adviceChanged, this, &TextView::update);
    update();
}

void TextView::update() {
    const auto& evaluation = m_session.evaluation();
    if (!evaluation) {
        QStringList problems;
        for (const core::Diagnostic& d : m_session.problems()) problems << qs(d.text());
        setPlainText(problems.isEmpty() ? QString() : tr("This scenario cannot be used:\n\n%1").arg(problems.join(QLatin1Char('\n'))));
        return;
    }
    const core::ResolvedScenario& r = evaluation->resolved;
    // The advice joins the estimate once priced (a worker prices it): never an earlier scenario's.
    QString text = qs(m_kind == Estimate ? core::estimateText(r, evaluation->estimate, m_session.advice().get()) : core::showText(r));
    if (const QString note = m_session.notCurrentNote(); !note.isEmpty()) {
        QStringList problems;
        for (const core::Diagnostic& d : m_session.problems()) problems << qs(d.text());
        text = tr("This scenario cannot be used:\n\n%1\n\n%2:\n\n%3")
                   .arg(problems.join(QLatin1Char('\n')), note, text);
    }
    setPlainText(text);
}

}  // namespace tessera::ui
