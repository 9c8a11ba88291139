#include "views/notcurrentcover.h"

#include <QEvent>
#include <QFrame>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

#include "session/session.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

NotCurrentCover::NotCurrentCover(Session& session, QWidget* view) : QWidget(view), m_session(session) {
    setObjectName(QStringLiteral("notCurrentCover"));
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto* card = new QFrame(this);
    card->setObjectName(QStringLiteral("notCurrentCard"));
    card->setFrameShape(QFrame::StyledPanel);
    card->setAutoFillBackground(true);
    card->setMaximumWidth(760);
    auto* inner = new QVBoxLayout(card);
    m_title = new QLabel(card);
    m_title->setStyleSheet(colours::problemLabel() + QStringLiteral("font-size: 13pt;"));
    inner->addWidget(m_title);
    m_items = new QVBoxLayout;
    inner->addLayout(m_items);
    auto* hint = new QLabel(tr("The figures behind are those of the last scenario that priced. Edit ▸ Undo returns to it."), card);
    hint->setWordWrap(true);
    inner->addWidget(hint);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(card, 4);
    row->addStretch(1);
    outer->addLayout(row);
    outer->addStretch(2);
    m_card = card;
    view->installEventFilter(this);
    connect(&m_session, &Session::evaluated, this, &NotCurrentCover::refresh);
    refresh();
}

bool NotCurrentCover::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parent() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

void NotCurrentCover::paintEvent(QPaintEvent*) {
    QPainter p(this);
    QColor veil = palette().color(QPalette::Window);
    veil.setAlpha(200);  // the last result shows through, faded: there, but not to be read as current
    p.fillRect(rect(), veil);
}

void NotCurrentCover::refresh() {
    const std::vector<core::Diagnostic>& problems = m_session.problems();
    setVisible(!problems.empty());
    if (problems.empty()) return;
    setGeometry(parentWidget()->rect());
    raise();
    m_title->setText(tr("⚠ Not evaluated: %1").arg(problemCount(problems.size())));
    while (QLayoutItem* item = m_items->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const std::vector<ProblemFix> fixes = m_session.fixes();
    constexpr std::size_t kShown = 6;
    for (std::size_t i = 0; i < problems.size() && i < kShown; ++i) {
        const core::Diagnostic& d = problems[i];
        auto* line = new QLabel(QStringLiteral("• %1: %2").arg(qs(d.path.empty() ? d.mark.text() : d.path), qs(d.message)), m_card);
        line->setWordWrap(true);
        line->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_items->addWidget(line);
        for (std::size_t f = 0; f < fixes.size(); ++f) {
            if (fixes[f].problem != i) continue;
            auto* button = new QPushButton(tr("Fix: %1").arg(fixes[f].text), m_card);
            button->setToolTip(tr("Applies the fix as one undo step"));
            button->setObjectName(QStringLiteral("applyFix"));
            connect(button, &QPushButton::clicked, this, [this, f] { m_session.applyFix(f); });
            m_items->addWidget(button, 0, Qt::AlignLeft);
        }
    }
    if (problems.size() > kShown)
        m_items->addWidget(new QLabel(tr("… and %1 more (the Scenario tab lists them all)").arg(problems.size() - kShown), m_card));
}

}  // namespace tessera::ui
