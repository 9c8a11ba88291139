#pragma once
// One edit of one form field, undoable. Consecutive edits of the same field merge
// into one command (typing "128" is one undo step, not three).
#include <QUndoCommand>
#include <functional>

namespace tessera::ui {

class SpecForm;

class FieldEdit : public QUndoCommand {
public:
    // `applied` runs after every undo and redo (the editor re-evaluates).
    FieldEdit(SpecForm* form, QString key, QString before, QString after, std::function<void()> applied);
    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

private:
    SpecForm* m_form;
    QString m_key, m_before, m_after;
    std::function<void()> m_applied;
    bool m_first = true;  // the first redo is the edit the user already made
};

}  // namespace tessera::ui
