#include "forms/specform.h"

#include <QComboBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "doc/emit.h"
#include "style/palette.h"

namespace tessera::ui {

namespace {

// A choice in a long scrolling form: the wheel scrolls the form unless the box has the
// focus (a click or Tab), as a spin box in a settings page does. Before, wheeling the
// form over a box silently stated a value (seen under Xvfb: Edit showed "Undo edit
// exec.optimizer_offload_overlap" after scrolling past it).
class FormComboBox : public QComboBox {
public:
    using QComboBox::QComboBox;

protected:
    void wheelEvent(QWheelEvent* event) override {
        if (!hasFocus()) return event->ignore();  // on to the scroll area
        QComboBox::wheelEvent(event);
    }
};

// The text a value is edited as: a scalar as written, a list or mapping as flow YAML.
QString valueText(const core::Value& v) {
    if (v.kind() == core::Value::Kind::String) return QString::fromStdString(v.asString());
    return QString::fromStdString(core::toYaml(v)).trimmed();
}

}  // namespace

QStringList FormBuilder::names(core::Choices choices) {
    QStringList out;
    for (std::string_view c : choices) out << QString::fromUtf8(c.data(), int(c.size()));
    return out;
}

void FormBuilder::row(core::Field f, QStringList choices) {
    const core::Value* v = m_stated.find(f.key);
    m_form.addRow(f, v ? valueText(*v) : QString(), std::move(choices));
}

SpecForm::SpecForm(QString section, QWidget* parent) : QWidget(parent), m_section(std::move(section)) {
    m_outer = new QVBoxLayout(this);
    m_outer->setContentsMargins(4, 4, 4, 4);
    m_outer->setSpacing(2);
    for (const QString& g : fieldGroups(m_section)) groupFor(g);  // in reading order
}

SpecForm::Group& SpecForm::groupFor(const QString& name) {
    const auto it = m_groups.find(name);
    if (it != m_groups.end()) return it->second;
    Group g;
    g.body = new QWidget(this);
    g.form = new QFormLayout(g.body);
    g.form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    g.form->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a long label puts its field below it, never squeezed
    g.form->setContentsMargins(name.isEmpty() ? 0 : 10, 0, 0, 4);
    if (!name.isEmpty()) {
        g.header = new QToolButton(this);
        g.header->setObjectName(m_section + QStringLiteral(".group.") + name);
        g.header->setText(QString(name).replace(QLatin1Char('&'), QStringLiteral("&&")));  // "Recompute & offload", no mnemonic
        g.header->setCheckable(true);
        g.header->setChecked(true);
        g.header->setArrowType(Qt::DownArrow);
        g.header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        g.header->setAutoRaise(true);
        QFont bold = g.header->font();
        bold.setBold(true);
        g.header->setFont(bold);
        QWidget* body = g.body;
        QToolButton* header = g.header;
        connect(g.header, &QToolButton::toggled, this, [body, header](bool open) {
            body->setVisible(open);
            header->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        });
        m_outer->addWidget(g.header);
    }
    m_outer->addWidget(g.body);
    return m_groups.emplace(name, g).first->second;
}

QString SpecForm::groupOf(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? QString() : it->second.look.group;
}

void SpecForm::setGroupOpen(const QString& group, bool open) {
    if (const auto it = m_groups.find(group); it != m_groups.end() && it->second.header) it->second.header->setChecked(open);
}

void SpecForm::addRow(core::Field f, const QString& text, QStringList choices) {
    const QString key = QString::fromUtf8(f.key.data(), int(f.key.size()));
    QString help = QString::fromUtf8(f.help.data(), int(f.help.size()));
    if (!f.unit.empty()) help += tr(" (%1)").arg(QString::fromUtf8(f.unit.data(), int(f.unit.size())));
    QWidget* editor = nullptr;
    if (!choices.isEmpty()) {
        auto* box = new FormComboBox(this);
        box->setFocusPolicy(Qt::StrongFocus);  // not taken by the wheel
        box->addItem(QString());  // unstated: absent is not zero
        box->addItems(choices);
        box->setCurrentText(text);
        if (box->currentText() != text) box->setEditText(text);
        connect(box, &QComboBox::currentTextChanged, this, [this, key] { emit edited(key); });
        editor = box;
    } else {
        auto* line = new QLineEdit(text, this);
        line->installEventFilter(this);  // Ctrl+Z is the window's undo, not the line's own
        line->setPlaceholderText(tr("not stated"));
        line->setClearButtonEnabled(true);
        connect(line, &QLineEdit::textEdited, this, [this, key] { emit edited(key); });
        editor = line;
    }
    editor->setObjectName(m_section + u'.' + key);
    editor->setToolTip(help);
    editor->setMinimumWidth(120);  // room for "1f1b · default": a long label wraps its field below instead
    const FieldLook look = fieldLook(m_section, key);
    auto* label = new QLabel(this);
    label->setToolTip(help);
    label->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(label, &QLabel::customContextMenuRequested, this, [this, key, label](const QPoint& at) {
        QMenu menu;
        QAction* pin = menu.addAction(isPinned(key) ? tr("Unpin %1").arg(key)
                                                    : tr("Pin %1 (kept when another degree changes)").arg(key));
        if (menu.exec(label->mapToGlobal(at)) == pin) setPinned(key, !isPinned(key));
    });
    Group& group = groupFor(look.group);
    group.form->addRow(label, editor);
    m_rows[key] = Row{editor, label, help, true, QString(), look, true};
    m_order.push_back(key);
    relabel(key);
}

// "Tensor parallel · tp", the key in grey; a pin when pinned.
void SpecForm::relabel(const QString& key) {
    Row& row = m_rows.at(key);
    const QString words = row.look.label == key ? QString() : row.look.label.toHtmlEscaped() + QStringLiteral(" ");
    row.label->setText(QStringLiteral("%1<span style=\"color:#888888\">· %2</span>%3")
                           .arg(words, key, isPinned(key) ? QStringLiteral(" 📌") : QString()));
}

void SpecForm::setPinned(const QString& key, bool pinned) {
    if (!m_rows.contains(key) || pinned == isPinned(key)) return;
    if (pinned) m_pinned << key;
    else m_pinned.removeAll(key);
    relabel(key);
}

void SpecForm::setResolved(const std::map<QString, QString>& placeholderByKey) {
    for (auto& [key, row] : m_rows) {
        const auto it = placeholderByKey.find(key);
        const QString text = it == placeholderByKey.end() ? tr("not stated") : it->second;
        if (auto* line = qobject_cast<QLineEdit*>(row.editor)) line->setPlaceholderText(text);
        else if (auto* box = qobject_cast<QComboBox*>(row.editor)) {
            const QSignalBlocker quiet(box);  // a new placeholder is not an edit
            box->setItemText(0, it == placeholderByKey.end() ? QString() : text);
        }
    }
}

QString SpecForm::placeholder(const QString& key) const {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return {};
    if (auto* line = qobject_cast<QLineEdit*>(it->second.editor)) return line->placeholderText();
    return qobject_cast<QComboBox*>(it->second.editor)->itemText(0);
}

void SpecForm::setApplies(const Applies& applies) {
    for (auto& [key, row] : m_rows) row.applies = !row.look.applies || row.look.applies(applies);
    showRows();
}

bool SpecForm::isRowShown(const QString& key) const {
    const auto it = m_rows.find(key);
    return it != m_rows.end() && !it->second.editor->isHidden();
}

// A row that cannot apply is hidden unless it states something or is refused; a group
// with nothing to show goes with its header.
void SpecForm::showRows() {
    std::map<QString, bool> anyShown;
    bool changed = false;
    for (auto& [key, row] : m_rows) {
        const bool show = row.applies || !text(key).isEmpty() || m_problems.contains(key);
        changed = changed || show != row.shown;
        row.shown = show;
        anyShown[row.look.group] = anyShown[row.look.group] || show;
    }
    // A hidden row leaves its form, not only its widgets: QFormLayout (WrapLongRows, Qt 6.4)
    // laid the visible rows before a hidden one at height 0, even through setRowVisible,
    // so "Gradient clipping" and its neighbours' fields vanished (seen under Xvfb).
    if (changed) {
        for (auto& [name, g] : m_groups)
            while (g.form->rowCount() > 0) {
                const QFormLayout::TakeRowResult taken = g.form->takeRow(0);
                delete taken.labelItem, delete taken.fieldItem;  // the layout's wrappers, not the widgets
            }
        for (const QString& key : m_order) {
            Row& row = m_rows.at(key);
            if (row.shown) groupFor(row.look.group).form->addRow(row.label, row.editor);
            row.label->setVisible(row.shown), row.editor->setVisible(row.shown);
        }
    }
    for (auto& [name, g] : m_groups) {
        const bool any = anyShown[name];
        if (g.header) g.header->setVisible(any);
        g.body->setVisible(any && (!g.header || g.header->isChecked()));
    }
}

// A line edit keeps its own undo history and claims Ctrl+Z for it while it has focus;
// that history would compete with the window's (one step per field edit, preset, pick).
// Declining the shortcut override lets Edit ▸ Undo take the key.
bool SpecForm::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) {
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QWidget* SpecForm::editor(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? nullptr : it->second.editor;
}

QString SpecForm::text(const QString& key) const {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return {};
    if (auto* box = qobject_cast<QComboBox*>(it->second.editor)) return box->currentIndex() <= 0 ? QString() : box->currentText();
    return qobject_cast<QLineEdit*>(it->second.editor)->text();
}

void SpecForm::setText(const QString& key, const QString& text) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return;
    const QSignalBlocker block(it->second.editor);
    if (auto* box = qobject_cast<QComboBox*>(it->second.editor)) {
        const int index = text.isEmpty() ? 0 : box->findText(text, Qt::MatchFixedString);
        if (index >= 0) box->setCurrentIndex(index);
        else box->setCurrentText(text);
    } else {
        auto* line = qobject_cast<QLineEdit*>(it->second.editor);
        line->setText(text);
        // A long value shown from its start ("[{layers: ...") rather than its tail,
        // unless the user is typing in it.
        if (!line->hasFocus()) line->setCursorPosition(0);
    }
}

void SpecForm::setNotPriced(const QString& key, const QString& why) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return;
    Row& row = it->second;
    row.priced = false;
    row.help = tr("Not priced: %1.").arg(why) + QStringLiteral("\n\n") + row.help;
    row.label->setStyleSheet(colours::unpricedLabel());
    row.label->setToolTip(row.help);
    row.editor->setToolTip(row.help);
}

QStringList SpecForm::keys() const { return QStringList(m_order.begin(), m_order.end()); }

std::optional<core::Value> SpecForm::valueOf(const QString& key) const {
    const QString typed = text(key);
    if (typed.trimmed().isEmpty()) return std::nullopt;
    const std::string name = QString(m_section + u'.' + key).toStdString();
    core::Value v;
    try {  // YAML, as in a file: `8`, `true`, `[{first: 0, option: full}]`
        v = core::parseDocument(typed.toStdString(), name, core::Format::Yaml);
    } catch (const core::SpecError&) {
        v = core::Value::string(typed.toStdString());  // the reader refuses it with its own words
    }
    v.setMark(core::Mark{name});
    return v;
}

core::Value SpecForm::values() const {
    core::Value map = core::Value::map(core::Mark{m_section.toStdString()});
    for (const QString& key : m_order)
        if (std::optional<core::Value> v = valueOf(key)) map.set(key.toStdString(), std::move(*v));
    return map;
}

void SpecForm::setValues(const core::Value& map) {
    for (const QString& key : m_order) {
        const core::Value* v = map.isMap() ? map.find(key.toStdString()) : nullptr;
        const bool stated = v && !v->isNull();
        const std::optional<core::Value> shown = valueOf(key);
        if (stated ? shown && shown->sameAs(*v) : !shown) continue;  // the text already says it
        setText(key, stated ? valueText(*v) : QString());
    }
    showRows();
}

void SpecForm::markProblems(const std::vector<core::Diagnostic>& problems) {
    std::map<QString, QStringList> byKey;
    const QString prefix = m_section + QStringLiteral(".");
    for (const core::Diagnostic& d : problems) {
        const QString path = QString::fromStdString(d.path);
        if (!path.startsWith(prefix)) continue;
        QString key = path.mid(prefix.size());
        key = key.left(key.indexOf(QRegularExpression(QStringLiteral("[.\\[]"))) < 0
                           ? key.size()
                           : key.indexOf(QRegularExpression(QStringLiteral("[.\\[]"))));
        byKey[key] << QString::fromStdString(d.message);
    }
    // Only rows whose problems changed are restyled: a style sheet costs a re-polish each.
    std::map<QString, QStringList> before;
    before.swap(m_problems);
    for (auto& [key, row] : m_rows) {
        const auto it = byKey.find(key);
        const QStringList now = it != byKey.end() ? it->second : QStringList();
        if (!now.isEmpty()) m_problems[key] = now;
        const auto was = before.find(key);
        if ((was == before.end() ? QStringList() : was->second) != now || !m_styled) restyle(row, now);
    }
    m_styled = true;
    showRows();
}

void SpecForm::setUnpricedHere(const std::map<QString, QString>& whyByKey) {
    for (auto& [key, row] : m_rows) {
        const auto it = whyByKey.find(key);
        const QString why = it != whyByKey.end() ? it->second : QString();
        if (why == row.unpricedHere) continue;
        row.unpricedHere = why;
        const auto problems = m_problems.find(key);
        restyle(row, problems != m_problems.end() ? problems->second : QStringList());
    }
}

void SpecForm::restyle(Row& row, const QStringList& problems) {
    const bool bad = !problems.isEmpty();
    const bool priced = row.priced && row.unpricedHere.isEmpty();
    QString help = row.help;
    if (!row.unpricedHere.isEmpty()) help = tr("Not priced here: %1.").arg(row.unpricedHere) + QStringLiteral("\n\n") + help;
    row.editor->setStyleSheet(bad ? colours::problemBorder() : QString());
    row.label->setStyleSheet(bad ? colours::problemLabel() : priced ? QString() : colours::unpricedLabel());
    row.label->setToolTip(help);
    row.editor->setToolTip(bad ? problems.join(u'\n') + QStringLiteral("\n\n") + help : help);
}

}  // namespace tessera::ui
