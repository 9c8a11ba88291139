#include "forms/scenarioeditor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QToolBox>
#include <QUndoStack>
#include <QVBoxLayout>

#include "commands/fieldedit.h"
#include "forms/specform.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "doc/emit.h"
#include "spec/searchspec.h"

namespace tessera::ui {

namespace {

QScrollArea* scrolled(QWidget* inner, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidget(inner);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

}  // namespace

ScenarioEditor::ScenarioEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_sections = new QToolBox(this);
    layout->addWidget(m_sections);

    // Model: a preset picker above the fields it fills.
    auto* modelPage = new QWidget(this);
    auto* modelLayout = new QVBoxLayout(modelPage);
    m_modelPreset = new QComboBox(modelPage);
    m_modelPreset->setObjectName("modelPreset");
    m_modelPreset->addItem(tr("(as stated)"));
    for (const core::PresetInfo& p : core::listPresets(core::PresetKind::Model))
        m_modelPreset->addItem(QString::fromStdString(p.id), QString::fromStdString(p.id));
    m_modelPreset->setToolTip(tr("Fill the model fields from a built-in model"));
    connect(m_modelPreset, &QComboBox::activated, this, [this](int index) {
        if (index > 0) loadModelPreset(m_modelPreset->itemData(index).toString());
    });
    modelLayout->addWidget(m_modelPreset);
    m_model = new SpecForm(QStringLiteral("model"), modelPage);
    m_model->build(core::ModelSpec{});
    modelLayout->addWidget(m_model);
    modelLayout->addStretch();
    m_sections->addItem(scrolled(modelPage, this), tr("Model"));

    m_exec = new SpecForm(QStringLiteral("exec"), this);
    m_exec->build(core::ExecSpec{});
    m_sections->addItem(scrolled(m_exec, this), tr("Execution"));

    auto* cluster = new QWidget(this);
    auto* clusterLayout = new QFormLayout(cluster);
    m_device = new QComboBox(cluster);
    m_device->setObjectName("device");
    for (const core::PresetInfo& p : core::listPresets(core::PresetKind::Device))
        m_device->addItem(QString::fromStdString(p.id), QString::fromStdString(p.id));
    m_device->setToolTip(tr("The device preset (datasheet figures, see tessera presets)"));
    m_devices = new QLineEdit(cluster);
    m_devices->setObjectName("devices");
    m_devices->setToolTip(tr("Devices in the cluster (total)"));
    clusterLayout->addRow(tr("device"), m_device);
    clusterLayout->addRow(tr("devices"), m_devices);
    m_sections->addItem(scrolled(cluster, this), tr("Cluster"));
    buildSearchForm();
    m_sections->setCurrentIndex(1);

    m_undo = new QUndoStack(this);
    connect(m_model, &SpecForm::edited, this, [this](const QString& key) { recordEdit(m_model, key); });
    connect(m_exec, &SpecForm::edited, this, [this](const QString& key) { recordEdit(m_exec, key); });
    connect(m_device, &QComboBox::currentTextChanged, this, &ScenarioEditor::changed);
    connect(m_devices, &QLineEdit::textEdited, this, &ScenarioEditor::changed);
}

void ScenarioEditor::setScenario(const core::Scenario& scenario) {
    m_base = scenario;
    m_model->setValues(core::SpecWriter::write(scenario.model));
    m_exec->setValues(core::SpecWriter::write(scenario.exec));
    const QSignalBlocker b1(m_device), b2(m_devices);
    const QString device = QString::fromStdString(scenario.cluster.device_preset.value_or(""));
    if (!device.isEmpty()) m_device->setCurrentText(device);
    m_device->setEnabled(!device.isEmpty() || !scenario.cluster.device);  // a custom device is kept as stated
    m_devices->setText(scenario.cluster.devices ? QString::number(*scenario.cluster.devices) : QString());
    for (auto& [key, line] : m_search) line->clear();
    if (scenario.search) {
        const core::Value search = core::searchValue(*scenario.search);
        auto text = [](const core::Value& v) {
            return v.kind() == core::Value::Kind::String ? QString::fromStdString(v.asString())
                                                          : QString::fromStdString(core::toYaml(v)).trimmed();
        };
        for (const char* section : {"space", "constraints"})
            if (const core::Value* map = search.find(section))
                for (const core::Value::Entry& e : map->entries())
                    if (auto it = m_search.find(QString(section) + "." + QString::fromStdString(e.key)); it != m_search.end())
                        it->second->setText(text(e.value));
        for (const char* key : {"objective", "keep"})
            if (const core::Value* v = search.find(key)) m_search.at(key)->setText(text(*v));
    }
    markProblems({});
    rememberTexts();
    m_undo->clear();  // a newly opened scenario starts a new history
}

void ScenarioEditor::buildSearchForm() {
    // Each exec key a search may vary: `auto`, a YAML list of candidates, or empty
    // (the exec value); then the constraints, the objective and how many to keep.
    auto* page = new QWidget(this);
    auto* form = new QFormLayout(page);
    auto add = [&](const QString& key, const QString& label, const QString& tip) {
        auto* line = new QLineEdit(page);
        line->setObjectName("search." + key);
        line->setPlaceholderText(tr("exec value"));
        line->setToolTip(tip);
        line->setClearButtonEnabled(true);
        form->addRow(label, line);
        connect(line, &QLineEdit::textEdited, this, &ScenarioEditor::changed);
        m_search[key] = line;
    };
    for (const core::AxisInfo& axis : core::searchAxes()) {
        const QString key = QString::fromUtf8(axis.key.data(), int(axis.key.size()));
        add("space." + key, key, tr("Candidates for %1: auto (every valid value), a list such as [1, 2, 4], or empty to keep the exec value").arg(key));
    }
    add("constraints.memory_limit_gb", tr("memory limit (GiB)"), tr("The tighter of this and the device memory holds"));
    add("constraints.global_batch_size", tr("global batch"), tr("Sequences per step every strategy must keep (else exec.global_batch_size)"));
    add("objective", tr("objective"), tr("step_time, memory or tokens_per_second"));
    add("keep", tr("keep"), tr("How many of the best strategies to keep beside the Pareto front"));
    m_sections->addItem(scrolled(page, this), tr("Search space"));
}

core::Value ScenarioEditor::searchValue() const {
    core::Value search = core::Value::map(), space = core::Value::map(), constraints = core::Value::map();
    for (const auto& [key, line] : m_search) {
        const QString text = line->text().trimmed();
        if (text.isEmpty()) continue;
        core::Value v;
        try {
            v = core::parseDocument(text.toStdString(), ("search." + key).toStdString(), core::Format::Yaml);
        } catch (const core::LoadError&) {
            v = core::Value::string(text.toStdString());
        }
        if (key.startsWith("space.")) space.set(key.mid(6).toStdString(), v);
        else if (key.startsWith("constraints.")) constraints.set(key.mid(12).toStdString(), v);
        else search.set(key.toStdString(), v);
    }
    if (!space.entries().empty()) search.set("space", space);
    if (!constraints.entries().empty()) search.set("constraints", constraints);
    return search;
}

void ScenarioEditor::recordEdit(SpecForm* form, const QString& key) {
    const QString path = form->section() + '.' + key;
    const QString before = m_lastText[path], after = form->text(key);
    m_lastText[path] = after;
    m_undo->push(new FieldEdit(form, key, before, after, [this, form, key] {
        m_lastText[form->section() + '.' + key] = form->text(key);
        emit changed();
    }));
    emit changed();
}

void ScenarioEditor::rememberTexts() {
    m_lastText.clear();
    for (SpecForm* form : {m_model, m_exec}) {
        const core::Value values = form->values();  // kept alive for the loop
        for (const core::Value::Entry& e : values.entries())
            m_lastText[form->section() + '.' + QString::fromStdString(e.key)] = form->text(QString::fromStdString(e.key));
    }
}

void ScenarioEditor::loadModelPreset(const QString& id) {
    if (std::optional<core::Value> preset = core::loadPreset(core::PresetKind::Model, id.toStdString())) {
        m_model->setValues(*preset);
        emit changed();
    }
}

std::optional<core::Scenario> ScenarioEditor::scenario(std::vector<core::Diagnostic>& problems) const {
    core::Diagnostics d;
    core::Scenario s = m_base;
    s.model = core::modelFromValue(m_model->values(), "model", d);
    s.exec = core::ExecSpec{};
    core::SpecReader(m_exec->values(), "exec", d).read(s.exec);
    if (m_device->isEnabled()) {
        const std::string id = m_device->currentData().toString().toStdString();
        if (std::optional<core::Value> preset = core::loadPreset(core::PresetKind::Device, id)) {
            core::DeviceSpec device;
            core::SpecReader(*preset, "cluster.device", d).read(device);
            s.cluster.device = device;
            s.cluster.device_preset = id;
        }
    }
    const core::Value search = searchValue();
    if (search.entries().empty()) s.search.reset();
    else s.search = core::readSearch(search, d);
    s.cluster.nodes.reset();
    s.cluster.devices.reset();
    if (!m_devices->text().trimmed().isEmpty()) {
        bool ok = false;
        const qlonglong n = m_devices->text().trimmed().toLongLong(&ok);
        if (ok && n >= 1) s.cluster.devices = n;
        else d.add({}, "cluster.devices", "expected a whole number of at least 1, got \"" + m_devices->text().toStdString() + "\"");
    }
    problems = d.list();
    if (!d.empty()) return std::nullopt;
    return s;
}

core::Value ScenarioEditor::document() const {
    core::Value root = core::scenarioValue(m_base);
    root.set("model", m_model->values());
    root.set("exec", m_exec->values());
    core::Value cluster = root.find("cluster") ? *root.find("cluster") : core::Value::map();
    if (m_device->isEnabled()) cluster.set("device", core::Value::string(m_device->currentData().toString().toStdString()));
    cluster.erase("nodes");
    cluster.erase("devices");
    if (!m_devices->text().trimmed().isEmpty()) {
        bool ok = false;
        const qlonglong n = m_devices->text().trimmed().toLongLong(&ok);
        cluster.set("devices", ok ? core::Value::integer(n) : core::Value::string(m_devices->text().toStdString()));
    }
    root.set("cluster", cluster);
    const core::Value search = searchValue();
    if (search.entries().empty()) root.erase("search");
    else root.set("search", search);
    return root;
}

void ScenarioEditor::setModel(const core::ModelSpec& model) {
    m_model->setValues(core::SpecWriter::write(model));
    emit changed();
}

void ScenarioEditor::markProblems(const std::vector<core::Diagnostic>& problems) {
    m_model->markProblems(problems);
    m_exec->markProblems(problems);
    bool devicesBad = false;
    for (const core::Diagnostic& d : problems) devicesBad = devicesBad || d.path.starts_with("cluster");
    m_devices->setStyleSheet(devicesBad ? "border: 2px solid #D50000;" : "");
    for (auto& [key, line] : m_search) {
        QStringList messages;
        const std::string path = "search." + key.toStdString();
        for (const core::Diagnostic& d : problems)
            if (d.path == path || d.path.starts_with(path + "[") || d.path.starts_with(path + "."))
                messages << QString::fromStdString(d.message);
        line->setStyleSheet(messages.isEmpty() ? "" : "border: 2px solid #D50000;");
        if (!messages.isEmpty()) line->setToolTip(messages.join('\n'));
    }
}

}  // namespace tessera::ui
