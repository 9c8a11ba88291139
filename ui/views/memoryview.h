#pragma once
// The Memory tab, a view of the Session: one stacked bar per pipeline stage (the
// chart builder's), a line on the peak stage, under the bars each stage's layers and
// what each recomputes (layerstrip.h), and the exact table of every term. The
// chart is rebuilt when the evaluation or the baseline changes and the tab is shown
// (rebuilding it takes most of an edit's time), else when the tab is next opened.
#include "views/lazyview.h"

class QChartView;
class QLabel;
class QTableView;

namespace tessera::core {
struct Evaluation;
}

namespace tessera::ui {

class Session;
class StageMemoryModel;
class LayerStrip;

class MemoryView : public LazyView {
    Q_OBJECT
public:
    explicit MemoryView(Session& session, QWidget* parent = nullptr);

private:
    void update();
    void setLayers(const core::Evaluation& evaluation);
    void rebuild() override;

    Session& m_session;
    QChartView* m_chart = nullptr;
    LayerStrip* m_strip = nullptr;
    QLabel* m_summary = nullptr;
    QTableView* m_table = nullptr;
    StageMemoryModel* m_model = nullptr;
};

}  // namespace tessera::ui
