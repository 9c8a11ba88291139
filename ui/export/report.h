#pragma once
// The PDF for a capacity review, built from values: the evaluation, the pinned
// baseline, the last search (and whether it is stale) and the scenario's hash. A
// title block traces every page to its input (model, cluster, strategy, date and the
// hash); page 1 holds the key figures, the memory per stage as a chart and a table;
// page 2 the schedule and where the step goes; page 3 the Pareto front; page 4 the
// best strategies and the search's counts and refusals. Everything is drawn for the
// page (ui/export/reviewtables.h): nothing is read back from the window.
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <memory>

#include "fit/advice.h"
#include "model/evaluation.h"
#include "workers/searchcontroller.h"

namespace tessera::ui {

class Session;

struct Review {
    std::shared_ptr<const core::Evaluation> evaluation;  // required
    std::shared_ptr<const core::Evaluation> baseline;
    QDateTime baselinePinned;
    std::shared_ptr<const SearchOutcome> search;
    bool searchStale = false;
    QStringList searchStaleSince;  // what changed since it ran, in words
    QString scenarioHash;
    std::shared_ptr<const core::FitAdvice> advice;  // why it does not fit and what would (core/fit)
    QDateTime made = QDateTime::currentDateTime();
};

// What the session holds now (its evaluation must be current).
Review reviewOf(const Session& session);

// The title block's lines: model and cluster, strategy, date and scenario hash.
QStringList titleBlock(const Review& review);

// Returns false with `error` set when the file cannot be written.
bool writeReport(const Review& review, const QString& path, QString* error);

}  // namespace tessera::ui
