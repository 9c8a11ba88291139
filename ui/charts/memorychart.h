#pragma once
#include <QString>
// The Memory view's chart: one stacked bar per pipeline stage (parameters,
// gradients, optimizer states, master copy, activations, buffers, working set), the
// device's memory as a labelled line, stages over it named in their axis label.
// Hovering a segment shows its exact bytes. A builder (estimate -> new QChart), so
// Qt Charts stays behind this one door (DESIGN.md).
#include <QtGlobal>

#include "model/estimate.h"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace tessera::ui {

// With a baseline, each stage's baseline total is drawn as an outline behind the bar.
// `baselineName` names the baseline's outline in the legend ("baseline: dp 2 · tp 8 ..., pinned 14:02").
QChart* buildMemoryChart(const core::Estimate& estimate, const core::Estimate* baseline = nullptr, const QString& baselineName = {});

}  // namespace tessera::ui
