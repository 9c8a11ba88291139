#pragma once
// A form for one section of the scenario document ("exec", "cluster",
// "search.constraints", ...), built from the spec's field table (spec/field.h): one
// row per field with its label, unit and tooltip (the field's meaning). Every field
// is edited as text - numbers, `true`/`false`, names, or YAML for lists - so what
// the user typed is kept even when it is wrong: valueOf() turns a row's text into the
// same Value a file gives, and the core reads and checks it exactly as it reads a
// file. The form holds no scenario of its own: it shows a section of the Session's
// document (setValues) and says which row was edited (edited); markProblems() puts
// the core's messages on the rows they name.
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "doc/document.h"
#include "io/specwriter.h"
#include "spec/diagnostics.h"
#include "spec/field.h"
#include "forms/fieldlook.h"

class QFormLayout;
class QLabel;
class QToolButton;
class QVBoxLayout;

namespace tessera::ui {

class SpecForm : public QWidget {
    Q_OBJECT
public:
    SpecForm(QString section, QWidget* parent = nullptr);

    // Rows from a spec's field table, filled with the spec's stated values.
    template <class Spec>
    void build(const Spec& spec);

    // The stated fields (rows with text) as a mapping; unparsable text is kept as a
    // string for the core to refuse with its own message.
    core::Value values() const;
    // A row's text as a value, nullopt when the row is empty (the field is unstated).
    std::optional<core::Value> valueOf(const QString& key) const;
    // Show a section's values (stated keys; rows it does not state are cleared). A
    // row whose text already means its value keeps the text, so typing "[1,2]" is
    // not rewritten to "[1, 2]" under the cursor.
    void setValues(const core::Value& map);
    // Mark the rows a diagnostic names (`exec.tp`, `exec.recompute[0].option`), clear the others.
    void markProblems(const std::vector<core::Diagnostic>& problems);
    QWidget* editor(const QString& key) const;
    // A row's text, and setting it without emitting edited().
    QString text(const QString& key) const;
    void setText(const QString& key, const QString& text);
    // The document path of the section ("exec", "search.space").
    const QString& section() const { return m_section; }
    QStringList keys() const;
    // A field the cost model does not price (core/model/priced.h): its row is greyed and
    // its tooltip says why, whatever it holds.
    void setNotPriced(const QString& key, const QString& why);
    // Fields not priced beside what the rest of the scenario states now (key -> why),
    // greyed like them until it changes; replaces the previous set.
    void setUnpricedHere(const std::map<QString, QString>& whyByKey);
    // What each unstated row resolved to and why ("1 · default"), as placeholders.
    void setResolved(const std::map<QString, QString>& placeholderByKey);
    QString placeholder(const QString& key) const;
    // Hide the rows that cannot apply to such a scenario (unless stated), and groups left empty.
    void setApplies(const Applies& applies);
    bool isRowShown(const QString& key) const;
    // Pinned rows keep their value when another degree changes (forms/scenarioeditor.cpp).
    void setPinned(const QString& key, bool pinned);
    bool isPinned(const QString& key) const { return m_pinned.contains(key); }
    const QStringList& pinned() const { return m_pinned; }
    // The group a row sits in, and whether a group is open.
    QString groupOf(const QString& key) const;
    void setGroupOpen(const QString& group, bool open);

signals:
    void edited(const QString& key);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

public:  // the visitor's entry points (called by build())
    void addRow(core::Field field, const QString& text, QStringList choices = {});

private:
    QString m_section;
    QVBoxLayout* m_outer = nullptr;
    struct Group {
        QToolButton* header = nullptr;  // null for the ungrouped rows of a section without groups
        QWidget* body = nullptr;
        QFormLayout* form = nullptr;
    };
    std::map<QString, Group> m_groups;
    Group& groupFor(const QString& name);
    struct Row {
        QWidget* editor;
        QLabel* label;
        QString help;      // its meaning, unit, and why it is not priced when it is not
        bool priced = true;
        QString unpricedHere;  // why it is not priced beside what else is stated; empty: it is
        FieldLook look;
        bool applies = true;
        bool shown = true;  // in its group's form (showRows)
    };
    void restyle(Row& row, const QStringList& problems);
    void relabel(const QString& key);
    void showRows();
    QStringList m_pinned;
    bool m_styled = false;  // every row restyled once
    std::map<QString, Row> m_rows;
    std::map<QString, QStringList> m_problems;  // the last markProblems(), by key
    std::vector<QString> m_order;
};

// The visitor that turns a field table into rows.
class FormBuilder {
public:
    FormBuilder(SpecForm& form, const core::Value& stated) : m_form(form), m_stated(stated) {}
    template <class T, class... Rest>
    void integer(core::Field f, const T&, Rest&&...) { row(f); }
    template <class T, class... Rest>
    void real(core::Field f, const T&, Rest&&...) { row(f); }
    template <class T>
    void flag(core::Field f, const T&) { row(f, {QStringLiteral("true"), QStringLiteral("false")}); }
    template <class T>
    void text(core::Field f, const T&) { row(f); }
    template <class T>
    void choice(core::Field f, const T&, core::Choices choices) { row(f, names(choices)); }
    template <class T>
    void textList(core::Field f, const T&, core::Choices) { row(f); }
    template <class T>
    void memory(core::Field f, const T&, core::Bytes) { row(f); }
    template <class T, class... Rest>
    void numberMap(core::Field f, const T&, Rest&&...) { row(f); }
    template <class T, class... Rest>
    void stageCounts(core::Field f, const T&, Rest&&...) { row(f); }
    template <class T>
    void ranges(core::Field f, const T&) { row(f); }

private:
    static QStringList names(core::Choices choices);
    void row(core::Field f, QStringList choices = {});
    SpecForm& m_form;
    const core::Value& m_stated;
};

template <class Spec>
void SpecForm::build(const Spec& spec) {
    const core::Value stated = core::SpecWriter::write(spec);
    FormBuilder builder(*this, stated);
    visit(spec, builder);
}

}  // namespace tessera::ui
