#pragma once
// Every change to the scenario, undoable. Before and after are whole documents (a
// scenario is a few kilobytes), so undo restores exactly what stood before: a model
// preset or an import as a whole, a pick with the strategy it replaced. Consecutive
// edits of one field merge into one step (typing "128" is one undo, not three), and
// an edit that brings the field back to where the step began is dropped.
//
// The command knows nothing of who holds the document: `apply` puts a document in
// place (the Session does, through its one door).
#include <QUndoCommand>
#include <functional>

#include "doc/document.h"

namespace tessera::ui {

class ScenarioChange : public QUndoCommand {
public:
    using Apply = std::function<void(const core::Value& document, bool undoing)>;
    // `mergeKey`: the field an edit changes ("exec.tp"); empty for a change that never merges.
    ScenarioChange(const QString& text, core::Value before, core::Value after, Apply apply, QString mergeKey = {});

    void undo() override { m_apply(m_before, true); }
    void redo() override { m_apply(m_after, false); }
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;
    const QString& mergeKey() const { return m_mergeKey; }

private:
    core::Value m_before, m_after;
    Apply m_apply;
    QString m_mergeKey;
};

}  // namespace tessera::ui
