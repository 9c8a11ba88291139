#pragma once
// The PDF for a capacity review: a title block that traces the pictures to their
// input (model, cluster, strategy, date and a short hash of the scenario), the key
// figures, the Memory, Pipeline and Pareto views as the window draws them, and the
// top strategies of the last search. Review mode (UI.md): a fixed logical size and
// the light palette, whatever the screen.
#include <QString>

namespace tessera::ui {

class MainWindow;

// Returns false with `error` set when the file cannot be written.
bool writeReport(MainWindow& window, const QString& path, QString* error);

// A short, stable hash of the scenario the window shows (its YAML), for title blocks.
QString scenarioHash(const MainWindow& window);

}  // namespace tessera::ui
