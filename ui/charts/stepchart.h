#pragma once
// Where the step goes: one horizontal bar split into compute, recompute, exposed
// communication, pipeline bubble and optimizer step (the estimate's breakdown), with
// a pinned baseline a second bar for it (each term's change in the legend), and one
// bar per pipeline stage (up to kStageRows stages): its own time over the step, its
// idle share as the bubble.
// Qt Charts stays behind this door (DESIGN.md).
#include <QtGlobal>
#include <cstdint>

#include "model/estimate.h"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace tessera::ui {

inline constexpr int kStageRows = 16;

// Whether the chart draws a row per stage: for 2 to kStageRows stages.
inline bool stepChartShowsStages(const core::Estimate& estimate) {
    return estimate.stages.size() > 1 && estimate.stages.size() <= std::size_t(kStageRows);
}
// The bars buildStepChart draws: the stages' (when it shows them), the baseline's, the step's.
inline int stepChartRows(const core::Estimate& estimate, bool baseline) {
    return (stepChartShowsStages(estimate) ? int(estimate.stages.size()) : 0) + (baseline ? 1 : 0) + 1;
}
// The height at which every row keeps a readable label (Qt hides every other label once
// rows are closer than a line and its padding): 15 px a row, and the title and axis.
inline int stepChartMinimumHeight(int rows) { return rows * 15 + 120; }

// `microBatches`: the micro-batches each stage runs per step.
QChart* buildStepChart(const core::Estimate& estimate, std::int64_t microBatches, const core::Estimate* baseline = nullptr);

}  // namespace tessera::ui
