#include "views/fitpanel.h"

#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "session/session.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

FitPanel::FitPanel(Session& session, QWidget* parent) : QFrame(parent), m_session(session) {
    setObjectName(QStringLiteral("fitPanel"));
    setFrameShape(QFrame::StyledPanel);
    setMinimumWidth(280);
    setMaximumWidth(380);
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    layout->addWidget(m_title);
    m_dominant = new QLabel(this);
    m_dominant->setObjectName(QStringLiteral("fitDominant"));
    m_dominant->setWordWrap(true);
    m_dominant->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_dominant);
    m_list = new QWidget(this);
    auto* list = m_list;
    m_moves = new QVBoxLayout(list);
    m_moves->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(list);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // rows wrap to the width, never run under the scroll bar
    scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);  // the width rows wrap to leaves room for it from the start
    layout->addWidget(scroll, 1);
    connect(&m_session, &Session::adviceChanged, this, &FitPanel::refresh);
    refresh();
}

void FitPanel::refresh() {
    while (QLayoutItem* item = m_moves->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const std::shared_ptr<const core::FitAdvice>& advice = m_session.advice();
    if (!advice) {
        m_title->setText(m_session.adviceIsPending() ? tr("Pricing what would fit…") : tr("Why it does not fit, and what would"));
        m_dominant->setText(m_session.adviceIsPending() ? QString() : tr("Not evaluated: the scenario has problems."));
        return;
    }
    m_title->setText(advice->fits ? tr("It fits. Faster strategies that still fit:") : tr("Why it does not fit, and what would"));
    m_title->setStyleSheet(advice->fits ? QString() : colours::problemLabel());
    m_dominant->setText(qs(advice->dominant.sentence) + QStringLiteral("\n\n") + qs(advice->summary));
    if (advice->suggestions.empty()) {
        m_moves->addWidget(new QLabel(advice->fits ? tr("No one- or two-knob move is faster and still fits.")
                                                   : tr("No one- or two-knob move fits: try Search ▶ over the whole space."),
                                      this));
    }
    for (std::size_t i = 0; i < advice->suggestions.size(); ++i) {
        const core::Suggestion& s = advice->suggestions[i];
        auto* row = new QFrame(m_list);
        row->setFrameShape(QFrame::NoFrame);
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 4, 0, 4);
        auto* text = new QLabel(qs(s.sentence), row);
        text->setWordWrap(true);
        if (!s.fits) text->setStyleSheet(QStringLiteral("color: #888888;"));
        QStringList changes;
        for (const core::Change& c : s.changes)
            if (!c.implicit) changes << qs(c.text());
        text->setToolTip(tr("Changes: %1").arg(changes.join(QStringLiteral(", "))));
        rowLayout->addWidget(text);
        auto* apply = new QPushButton(tr("Apply"), row);
        apply->setObjectName(QStringLiteral("applySuggestion"));
        apply->setToolTip(tr("Write %1 into the exec section (one undo step)").arg(changes.join(QStringLiteral(", "))));
        // The advice may be replaced before the click: apply the one this row shows.
        connect(apply, &QPushButton::clicked, this, [this, keep = advice, i] { m_session.applySuggestion(keep->suggestions[i]); });
        rowLayout->addWidget(apply, 0, Qt::AlignLeft);
        m_moves->addWidget(row);
        row->show();  // now, not on the next turn of the event loop: a picture taken at once has it
    }
    m_moves->addStretch(1);
}

}  // namespace tessera::ui
