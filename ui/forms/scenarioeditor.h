#pragma once
// The left panel: the scenario's sections as forms - model (with a preset picker),
// execution, cluster (a device preset picker above the cluster's own fields) and the
// search space - every row built from a field table (SpecForm). The editor is a view
// of the Session's document: it shows what the document says, and turns each edit
// into the document with that one field changed, handed to Session::setScenario as
// one undo step (consecutive keystrokes in one field merge). A model preset is one
// step too, as a whole. Problems the core finds are shown on the rows they name.
#include <QWidget>

class QComboBox;
class QSpinBox;
class QToolBox;
class QUndoStack;

namespace tessera::core {
class Value;
}

namespace tessera::ui {

class Session;
class SpecForm;
enum class Change;

class ScenarioEditor : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioEditor(Session& session, QWidget* parent = nullptr);

    SpecForm* modelForm() const { return m_model; }
    SpecForm* execForm() const { return m_exec; }
    SpecForm* clusterForm() const { return m_cluster; }
    QUndoStack* undoStack() const;
    // Model ▾ Device ▾ device count, for the window's toolbar.
    QWidget* topBar() const;

private:
    void showDocument();
    void showProblems();
    void showResolved();
    void edited(SpecForm* form, const QString& key);
    void loadModelPreset(const QString& id);
    bool rederived(SpecForm* form, const QString& key, core::Value& document) const;
    void chooseDevice(const QString& id);

    Session& m_session;
    QToolBox* m_sections = nullptr;
    QComboBox* m_modelPreset = nullptr;
    QComboBox* m_device = nullptr;
    QSpinBox* m_devices = nullptr;
    QWidget* m_topBar = nullptr;
    SpecForm* m_model = nullptr;
    SpecForm* m_exec = nullptr;
    SpecForm* m_cluster = nullptr;
    SpecForm* m_space = nullptr;        // search.space
    SpecForm* m_constraints = nullptr;  // search.constraints
    SpecForm* m_search = nullptr;       // search: objective and keep
};

}  // namespace tessera::ui
