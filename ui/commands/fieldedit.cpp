#include "commands/fieldedit.h"

#include <QHash>

#include "forms/specform.h"

namespace tessera::ui {

FieldEdit::FieldEdit(SpecForm* form, QString key, QString before, QString after, std::function<void()> applied)
    : m_form(form), m_key(std::move(key)), m_before(std::move(before)), m_after(std::move(after)), m_applied(std::move(applied)) {
    setText(QObject::tr("edit %1.%2").arg(form->section(), m_key));
}

void FieldEdit::undo() {
    m_form->setText(m_key, m_before);
    if (m_applied) m_applied();
}

void FieldEdit::redo() {
    if (m_first) {
        m_first = false;
        return;
    }
    m_form->setText(m_key, m_after);
    if (m_applied) m_applied();
}

int FieldEdit::id() const { return int(qHash(m_form->section() + '.' + m_key) & 0x7fffffff); }

bool FieldEdit::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const FieldEdit*>(other);
    if (next->m_form != m_form || next->m_key != m_key) return false;
    m_after = next->m_after;
    return true;
}

}  // namespace tessera::ui
