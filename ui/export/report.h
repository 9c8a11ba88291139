#pragma once
// The PDF for a capacity review: a title block that traces the pictures to their
// input (model, cluster, strategy, date and a short hash of the scenario), the key
// figures, the Memory, Pipeline and Pareto views as the window draws them, and the
// top strategies of the last search. Review mode (UI.md): a fixed logical size and
// the light palette, whatever the screen.
#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

class QWidget;

namespace tessera::ui {

class MainWindow;

// Returns false with `error` set when the file cannot be written.
bool writeReport(MainWindow& window, const QString& path, QString* error);

// The title block's lines: model and cluster, strategy, date and scenario hash.
QStringList titleBlock(const MainWindow& window);
// A picture of `view` (the whole window when null) at `size` with the title block on
// top, for review screenshots.
QImage reviewPicture(MainWindow& window, QWidget* view, QSize size);

// A short, stable hash of the scenario the window shows (its YAML), for title blocks.
QString scenarioHash(const MainWindow& window);

}  // namespace tessera::ui
