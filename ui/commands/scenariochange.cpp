#include "commands/scenariochange.h"

namespace tessera::ui {

ScenarioChange::ScenarioChange(const QString& text, core::Value before, core::Value after, Apply apply, QString mergeKey)
    : m_before(std::move(before)), m_after(std::move(after)), m_apply(std::move(apply)), m_mergeKey(std::move(mergeKey)) {
    setText(text);
}

int ScenarioChange::id() const { return m_mergeKey.isEmpty() ? -1 : 1; }  // one id: mergeWith compares the fields

bool ScenarioChange::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const ScenarioChange*>(other);
    if (next->m_mergeKey != m_mergeKey) return false;
    m_after = next->m_after;
    setObsolete(m_after.sameAs(m_before));  // typed back to where it was: no step at all
    return true;
}

}  // namespace tessera::ui
