#pragma once
// The main window: the views of one scenario's estimate as tabs (Memory, Pipeline,
// Estimate, Scenario) and its key figures in the status bar. A scenario that does
// not load shows every problem with it instead. The forms, the search and the
// Pareto view arrive with the rest of the desktop-app issue.
#include <QMainWindow>

#include "model/estimate.h"
#include "resolve/resolve.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableView;

namespace tessera::ui {

class StageMemoryModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // An empty path opens the embedded default scenario.
    explicit MainWindow(const QString& scenarioPath, QWidget* parent = nullptr);

    // "memory", "pipeline", "estimate" or "scenario"; false for an unknown name.
    bool showView(const QString& name);
    QWidget* view(const QString& name) const;
    bool loaded() const { return m_loaded; }

private:
    void load(const QString& scenarioPath);
    void showEstimate(const core::ResolvedScenario& r, const core::Estimate& e);

    QTabWidget* m_tabs = nullptr;
    QWidget* m_memory = nullptr;
    QWidget* m_pipeline = nullptr;
    QPlainTextEdit* m_estimateText = nullptr;
    QPlainTextEdit* m_scenarioText = nullptr;
    QTableView* m_stageTable = nullptr;
    StageMemoryModel* m_stageModel = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_figures = nullptr;
    bool m_loaded = false;
};

}  // namespace tessera::ui
