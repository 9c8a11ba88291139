#include "forms/specform.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

#include "doc/emit.h"
#include "style/palette.h"

namespace tessera::ui {

namespace {

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
    m_layout = new QFormLayout(this);
    m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_layout->setContentsMargins(4, 4, 4, 4);
}

void SpecForm::addRow(core::Field f, const QString& text, QStringList choices) {
    const QString key = QString::fromUtf8(f.key.data(), int(f.key.size()));
    QString help = QString::fromUtf8(f.help.data(), int(f.help.size()));
    if (!f.unit.empty()) help += tr(" (%1)").arg(QString::fromUtf8(f.unit.data(), int(f.unit.size())));
    QWidget* editor = nullptr;
    if (!choices.isEmpty()) {
        auto* box = new QComboBox(this);
        box->addItem(QString());  // unstated: absent is not zero
        box->addItems(choices);
        box->setCurrentText(text);
        if (box->currentText() != text) box->setEditText(text);
        connect(box, &QComboBox::currentTextChanged, this, [this, key] { emit edited(key); });
        editor = box;
    } else {
        auto* line = new QLineEdit(text, this);
        line->setPlaceholderText(tr("not stated"));
        line->setClearButtonEnabled(true);
        connect(line, &QLineEdit::textEdited, this, [this, key] { emit edited(key); });
        editor = line;
    }
    editor->setObjectName(m_section + u'.' + key);
    editor->setToolTip(help);
    auto* label = new QLabel(key, this);
    label->setToolTip(help);
    m_layout->addRow(label, editor);
    m_rows[key] = Row{editor, label, help, true, QString()};
    m_order.push_back(key);
}

QWidget* SpecForm::editor(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? nullptr : it->second.editor;
}

QString SpecForm::text(const QString& key) const {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return {};
    if (auto* box = qobject_cast<QComboBox*>(it->second.editor)) return box->currentText();
    return qobject_cast<QLineEdit*>(it->second.editor)->text();
}

void SpecForm::setText(const QString& key, const QString& text) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return;
    const QSignalBlocker block(it->second.editor);
    if (auto* box = qobject_cast<QComboBox*>(it->second.editor)) box->setCurrentText(text);
    else qobject_cast<QLineEdit*>(it->second.editor)->setText(text);
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
    m_problems.clear();
    for (auto& [key, row] : m_rows) {
        const auto it = byKey.find(key);
        if (it != byKey.end()) m_problems[key] = it->second;
        restyle(row, it != byKey.end() ? it->second : QStringList());
    }
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
