#include "forms/scenarioeditor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QToolBox>
#include <QVBoxLayout>
#include <algorithm>

#include "forms/specform.h"
#include "doc/emit.h"
#include "fit/rederive.h"
#include "io/overrides.h"
#include "io/scenarioio.h"
#include "io/presets.h"
#include "model/priced.h"
#include "session/session.h"
#include "spec/clusterspec.h"
#include "spec/searchspec.h"
#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

namespace {

QScrollArea* scrolled(QWidget* inner, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidget(inner);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

// The mapping at a dotted path of the document, or an empty one.
core::Value sectionAt(const core::Value& document, const QString& path) {
    const core::Value* at = &document;
    for (const QString& part : path.split(QLatin1Char('.'))) {
        at = at->isMap() ? at->find(part.toStdString()) : nullptr;
        if (!at) return core::Value::map();
    }
    return *at;
}

QString viewOf(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

}  // namespace

ScenarioEditor::ScenarioEditor(Session& session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_sections = new QToolBox(this);
    layout->addWidget(m_sections);

    // The top bar (UI.md): Model ▾ Device ▾ device count; the window puts it in its toolbar.
    m_topBar = new QWidget(this);
    auto* bar = new QHBoxLayout(m_topBar);
    bar->setContentsMargins(0, 0, 0, 0);
    auto* modelPage = new QWidget(this);
    auto* modelLayout = new QVBoxLayout(modelPage);
    m_modelPreset = new QComboBox(m_topBar);
    m_modelPreset->setObjectName(QStringLiteral("modelPreset"));
    m_modelPreset->addItem(tr("Load a model preset…"));
    for (const core::PresetInfo& p : core::listPresets(core::PresetKind::Model))
        m_modelPreset->addItem(qs(p.id), qs(p.id));
    m_modelPreset->setToolTip(tr("Replace the model section with a built-in model (one undo step)"));
    connect(m_modelPreset, &QComboBox::activated, this, [this](int index) {
        if (index > 0) loadModelPreset(m_modelPreset->itemData(index).toString());
        m_modelPreset->setCurrentIndex(0);
    });
    m_modelPreset->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    bar->addWidget(m_modelPreset);
    m_model = new SpecForm(QStringLiteral("model"), modelPage);
    m_model->build(core::ModelSpec{});
    modelLayout->addWidget(m_model);
    modelLayout->addStretch();
    m_sections->addItem(scrolled(modelPage, this), tr("Model"));

    m_exec = new SpecForm(QStringLiteral("exec"), this);
    m_exec->build(core::ExecSpec{});
    for (const core::UnpricedField& f : core::unpricedFields())
        m_exec->setNotPriced(viewOf(f.key), viewOf(f.why) + tr(" (priced as %1)").arg(viewOf(f.pricedAs)));
    m_sections->addItem(scrolled(m_exec, this), tr("Execution"));

    // Cluster: the device preset above the cluster's own fields.
    auto* clusterPage = new QWidget(this);
    auto* clusterLayout = new QVBoxLayout(clusterPage);
    m_device = new QComboBox(m_topBar);
    m_device->setObjectName(QStringLiteral("cluster.device"));
    for (const core::PresetInfo& p : core::listPresets(core::PresetKind::Device)) m_device->addItem(qs(p.id), qs(p.id));
    m_device->setToolTip(viewOf(core::kClusterDevice.help) + tr(" (datasheet figures: tessera presets)"));
    connect(m_device, &QComboBox::activated, this, [this](int index) { chooseDevice(m_device->itemData(index).toString()); });
    bar->addWidget(new QLabel(tr("Device"), m_topBar));
    bar->addWidget(m_device);
    m_devices = new QSpinBox(m_topBar);
    m_devices->setObjectName(QStringLiteral("topBarDevices"));
    m_devices->setRange(1, 1 << 20);
    m_devices->setSuffix(tr(" devices"));
    m_devices->setKeyboardTracking(false);  // one step when the value is complete, not one per digit
    m_devices->setToolTip(tr("cluster.devices: how many devices the run uses (one undo step)"));
    connect(m_devices, &QSpinBox::valueChanged, this, [this](int n) {
        core::Value doc = m_session.document();
        core::setAt(doc, "cluster.devices", core::Value::integer(n));
        m_session.setScenario(doc, Change::Import, tr("use %1 devices").arg(n));
    });
    bar->addWidget(m_devices);
    m_cluster = new SpecForm(QStringLiteral("cluster"), clusterPage);
    m_cluster->build(core::ClusterSpec{});
    clusterLayout->addWidget(m_cluster);
    clusterLayout->addStretch();
    m_sections->addItem(scrolled(clusterPage, this), tr("Cluster"));

    // Search: each axis `auto`, a YAML list of candidates, or empty (the exec value);
    // then the constraints, the objective and how many to keep.
    auto* searchPage = new QWidget(this);
    auto* searchLayout = new QVBoxLayout(searchPage);
    m_space = new SpecForm(QStringLiteral("search.space"), searchPage);
    for (const core::AxisInfo& axis : core::searchAxes()) {
        if (!axis.searched) continue;
        const QString key = viewOf(axis.key);
        const std::string help = "Candidates for " + (axis.help.empty() ? "exec." + std::string(axis.key) : std::string(axis.help)) +
                                 ": auto (every valid value), a list such as [1, 2, 4], or empty to keep the exec value";
        m_space->addRow(core::Field{axis.key, help}, QString());
        if (auto* line = qobject_cast<QLineEdit*>(m_space->editor(key))) line->setPlaceholderText(tr("exec value"));
    }
    searchLayout->addWidget(m_space);
    m_constraints = new SpecForm(QStringLiteral("search.constraints"), searchPage);
    m_constraints->build(core::SearchConstraints{});
    searchLayout->addWidget(m_constraints);
    m_search = new SpecForm(QStringLiteral("search"), searchPage);
    m_search->build(core::SearchSpec{});
    searchLayout->addWidget(m_search);
    searchLayout->addStretch();
    m_sections->addItem(scrolled(searchPage, this), tr("Search space"));
    m_sections->setCurrentIndex(1);

    for (SpecForm* form : {m_model, m_exec, m_cluster, m_space, m_constraints, m_search})
        connect(form, &SpecForm::edited, this, [this, form](const QString& key) { edited(form, key); });
    connect(&m_session, &Session::documentChanged, this, &ScenarioEditor::showDocument);
    connect(&m_session, &Session::evaluated, this, &ScenarioEditor::showProblems);
    showDocument();
    showProblems();
}

QUndoStack* ScenarioEditor::undoStack() const { return m_session.undoStack(); }

QWidget* ScenarioEditor::topBar() const { return m_topBar; }

void ScenarioEditor::showDocument() {
    const core::Value& doc = m_session.document();
    for (SpecForm* form : {m_model, m_exec, m_cluster, m_space, m_constraints, m_search})
        form->setValues(sectionAt(doc, form->section()));
    // The device: a preset by its id; a device stated by its figures is kept as stated.
    // The model picker names the model shown; its items replace it.
    const core::Value model = sectionAt(doc, QStringLiteral("model"));  // kept: `name` points into it
    const core::Value* name = model.find("name");
    m_modelPreset->setItemText(0, tr("Model: %1").arg(name && name->kind() == core::Value::Kind::String ? qs(name->asString())
                                                                                                          : tr("(unnamed)")));
    {
        const QSignalBlocker quiet(m_devices);
        const core::Value clusterSection = sectionAt(doc, QStringLiteral("cluster"));  // kept: `n` points into it
        const core::Value* n = clusterSection.find("devices");
        if (n && n->kind() == core::Value::Kind::Int) m_devices->setValue(int(std::clamp<std::int64_t>(n->asInt(), 1, 1 << 20)));
        else if (const auto& e = m_session.evaluation(); e && e->resolved.scenario.cluster.devices)
            m_devices->setValue(int(*e->resolved.scenario.cluster.devices));
    }
    const QSignalBlocker block(m_device);
    const core::Value cluster = sectionAt(doc, QStringLiteral("cluster"));  // kept: `device` points into it
    const core::Value* device = cluster.find("device");
    const int custom = m_device->findData(QString());
    if (custom >= 0) m_device->removeItem(custom);
    if (device && device->kind() == core::Value::Kind::String) {
        const QString id = qs(device->asString());
        if (m_device->findData(id) < 0) m_device->addItem(id, id);  // an unknown id: shown, and refused by the core
        m_device->setCurrentIndex(m_device->findData(id));
        m_device->setEnabled(true);
    } else if (device && !device->isNull()) {
        m_device->addItem(tr("(custom device, as stated)"), QString());
        m_device->setCurrentIndex(m_device->count() - 1);
        m_device->setEnabled(false);
    } else {
        m_device->setCurrentIndex(-1);
        m_device->setEnabled(true);
    }
}

void ScenarioEditor::showProblems() {
    const std::vector<core::Diagnostic>& problems = m_session.problems();
    for (SpecForm* form : {m_model, m_exec, m_cluster, m_space, m_constraints, m_search}) form->markProblems(problems);
    // The fields not priced beside what else the scenario states (the table's own are marked once).
    std::map<QString, QString> here;
    if (const std::optional<core::Scenario>& s = m_session.scenario())
        for (const core::NotPriced& n : core::notPriced(s->exec)) {
            const QString key = qs(n.key).mid(int(sizeof "exec.") - 1);
            const bool always = std::any_of(core::unpricedFields().begin(), core::unpricedFields().end(),
                                            [&](const core::UnpricedField& f) { return viewOf(f.key) == key; });
            if (!always) here[key] = qs(n.why);
        }
    m_exec->setUnpricedHere(here);
    std::map<QString, QString> modelHere;  // the imported config.json's keys Tessera does not price
    if (const std::optional<core::Scenario>& s = m_session.scenario())
        for (const core::NotPriced& n : core::notPriced(*s))
            if (n.key == "model.unpriced_keys") modelHere[QStringLiteral("unpriced_keys")] = qs(n.why);
    m_model->setUnpricedHere(modelHere);
    showResolved();
    QStringList device;
    for (const core::Diagnostic& d : problems)
        if (d.path.starts_with("cluster.device")) device << qs(d.message);
    m_device->setStyleSheet(device.isEmpty() ? QString() : colours::problemBorder());
    m_device->setToolTip(device.isEmpty() ? viewOf(core::kClusterDevice.help) : device.join(QLatin1Char('\n')));
}

// Each unstated row's placeholder: what the scenario resolved it to and where that came
// from ("4 · derived: devices / (tp·pp·cp)"); while the document does not resolve, the
// placeholders say so rather than show the last scenario's values. Rows that cannot
// apply to this model are hidden unless stated.
void ScenarioEditor::showResolved() {
    const auto& evaluation = m_session.evaluation();
    const bool current = evaluation && m_session.problems().empty();
    const core::Value resolved = current ? core::scenarioValue(evaluation->resolved.scenario) : core::Value::map();
    for (SpecForm* form : {m_model, m_exec, m_cluster}) {
        std::map<QString, QString> placeholders;
        const core::Value section = sectionAt(resolved, form->section());
        for (const QString& key : form->keys()) {
            if (!current) {
                placeholders[key] = tr("not resolved");
                continue;
            }
            const core::Value* v = section.find(key.toStdString());
            if (!v || v->isNull()) continue;
            const auto filled = evaluation->resolved.filled.find(QString(form->section() + u'.' + key).toStdString());
            const QString text = v->kind() == core::Value::Kind::String ? qs(v->asString()) : qs(core::toYaml(*v)).trimmed();
            placeholders[key] = text + QStringLiteral(" · ") +
                                (filled != evaluation->resolved.filled.end() ? qs(filled->second.text()) : tr("resolved"));
        }
        form->setResolved(placeholders);
    }
    const core::Value model = sectionAt(resolved, QStringLiteral("model"));
    const Applies applies = appliesOf(m_session.document(), current ? &model : nullptr);
    for (SpecForm* form : {m_model, m_exec}) form->setApplies(applies);
}

void ScenarioEditor::edited(SpecForm* form, const QString& key) {
    core::Value doc = m_session.document();
    const QString path = form->section() + QLatin1Char('.') + key;
    try {
        if (!rederived(form, key, doc)) core::setAt(doc, path.toStdString(), form->valueOf(key));
    } catch (const core::SpecError&) {
        // The section above is not a mapping (`search: 3` in the file): the form's row replaces it.
        core::Value section = core::Value::map();
        if (std::optional<core::Value> v = form->valueOf(key)) section.set(key.toStdString(), *v);
        core::setAt(doc, form->section().toStdString(), section);
    }
    // An emptied search keeps no empty sections behind, as a hand-written file would not.
    if (core::Value* search = doc.find("search"); search && search->isMap()) {
        for (const char* part : {"space", "constraints"})
            if (const core::Value* v = search->find(part); v && v->isMap() && v->entries().empty()) search->erase(part);
        if (search->entries().empty()) doc.erase("search");
    }
    m_session.setScenario(doc, Change::Edit, tr("edit %1").arg(path), path);
}

// A what-if on one exec field re-derives what it binds (tp 8 -> 4: dp doubles, the
// micro-batches halve; core/fit/rederive.h) unless those are pinned, so it is one
// valid edit rather than a chain of refusals. False when it does not apply: another
// section, an emptied row, a value that does not read (the core refuses it by name),
// or a document that does not read as a scenario.
bool ScenarioEditor::rederived(SpecForm* form, const QString& key, core::Value& document) const {
    const std::optional<core::Scenario> stated = m_session.statedNow();
    const std::optional<core::Value> value = form->valueOf(key);
    if (form != m_exec || !stated || !value) return false;
    std::set<std::string> pinned;
    for (const QString& k : m_exec->pinned()) pinned.insert(k.toStdString());
    try {
        core::applyChanges(document, core::rederive(*stated, key.toStdString(), *value, pinned));
        // The edited field as typed ("1" stays 1, not 1.0): a row is never rewritten under the cursor.
        core::setAt(document, "exec." + key.toStdString(), *value);
    } catch (const core::SpecError&) {
        return false;
    }
    return true;
}

void ScenarioEditor::loadModelPreset(const QString& id) {
    if (std::optional<core::Value> preset = core::loadPreset(core::PresetKind::Model, id.toStdString())) {
        core::Value doc = m_session.document();
        core::setAt(doc, "model", *preset);
        m_session.setScenario(doc, Change::Import, tr("load the model preset %1").arg(id));
    }
}

void ScenarioEditor::chooseDevice(const QString& id) {
    if (id.isEmpty()) return;
    core::Value doc = m_session.document();
    core::setAt(doc, "cluster.device", core::Value::string(id.toStdString()));
    m_session.setScenario(doc, Change::Import, tr("choose the device %1").arg(id));
}

}  // namespace tessera::ui
