#pragma once
// The Pareto view's chart: every candidate the last search kept as a dot, peak
// memory (x) against step time (y); the front as a line through its points; the
// memory limit as a labelled vertical line; the current strategy as a ring. Hover a
// dot for its strategy in one line; clicking one calls `pick` with it.
#include <QtGlobal>
#include <functional>
#include <optional>

#include "search/search.h"

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace tessera::ui {

struct CurrentPoint {
    core::Bytes peakMemory = 0;
    double stepSeconds = 0;
};

// `baseline`, when pinned, is drawn as a square (UI.md).
QChart* buildParetoChart(const core::SearchResult& result, core::Bytes memoryLimit, std::optional<CurrentPoint> current,
                         std::function<void(const core::Candidate&)> pick, std::optional<CurrentPoint> baseline = std::nullopt);

// For print: numbers the front's points 1, 2, ... (fastest first: the front's order)
// beside each point, once the chart is laid out; the page lists what each number is.
void numberFrontPoints(QChart* chart, const core::SearchResult& result);

}  // namespace tessera::ui
