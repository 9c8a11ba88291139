#pragma once
// The left panel: the model, execution and cluster sections of a scenario as
// forms (SpecForm rows from the field tables, a model preset picker, a device
// preset picker and the device count). Every edit emits changed(); scenario() reads
// the forms back through the core's own reader, so a wrong value is refused with
// the same words a file would get, and markProblems() shows them on the fields.
#include <QWidget>
#include <map>
#include <optional>

#include "doc/document.h"
#include "spec/scenario.h"

class QComboBox;
class QLineEdit;
class QToolBox;
class QUndoStack;

namespace tessera::ui {

class SpecForm;

class ScenarioEditor : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioEditor(QWidget* parent = nullptr);

    void setScenario(const core::Scenario& scenario);
    // The scenario the forms state, or nullopt with the problems in `problems`.
    std::optional<core::Scenario> scenario(std::vector<core::Diagnostic>& problems) const;
    void markProblems(const std::vector<core::Diagnostic>& problems);
    // The forms as a scenario document, exactly as typed (wrong values included), with
    // the sections the forms do not show kept from the loaded scenario: what Save writes.
    core::Value document() const;
    // Replace the model section (an imported HF config.json).
    void setModel(const core::ModelSpec& model);
    SpecForm* modelForm() const { return m_model; }
    SpecForm* execForm() const { return m_exec; }
    QUndoStack* undoStack() const { return m_undo; }

signals:
    void changed();

private:
    void loadModelPreset(const QString& id);
    void recordEdit(SpecForm* form, const QString& key);
    void buildSearchForm();
    core::Value searchValue() const;
    void rememberTexts();

    core::Scenario m_base;  // what the forms do not show (search section, custom device figures)
    QToolBox* m_sections = nullptr;
    QComboBox* m_modelPreset = nullptr;
    QComboBox* m_device = nullptr;
    QLineEdit* m_devices = nullptr;
    std::map<QString, QLineEdit*> m_search;  // "space.tp", "constraints.memory_limit_gb", "objective", "keep"
    SpecForm* m_model = nullptr;
    SpecForm* m_exec = nullptr;
    QUndoStack* m_undo = nullptr;
    std::map<QString, QString> m_lastText;  // "exec.tp" -> its text before the edit in progress
};

}  // namespace tessera::ui
