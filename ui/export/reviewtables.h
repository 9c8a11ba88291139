#pragma once
// Drawing for print, from values: a chart built by a ui/charts builder, a widget
// that paints itself from values (the timeline), and a table of text, each into a box
// of a page. What lands in the PDF is vector graphics and text, not a screenshot.
#include <functional>
#include <QFont>
#include <QList>
#include <QRectF>
#include <QStringList>

class QAbstractItemModel;
class QChart;
class QPainter;
class QWidget;

namespace tessera::ui {

struct TextTable {
    QStringList headers;
    QList<QStringList> rows;
    QList<int> rightAligned;  // columns of numbers
};

// A model's display text, header and rows (at most `rows`), numbers right-aligned.
TextTable tableOf(const QAbstractItemModel& model, int rows = 1 << 20);

// Each takes `scale` device pixels per logical pixel, so fonts read at their point size.
// Takes the chart; `laidOut`, when given, runs once the chart has its size (to place
// labels at data points) and before it is drawn.
void drawChart(QPainter& painter, QChart* chart, const QRectF& box, double scale,
               const std::function<void(QChart*)>& laidOut = {});
void drawWidget(QPainter& painter, QWidget& widget, const QRectF& box, double scale);
// Returns the height drawn; stops at the box's bottom.
double drawTable(QPainter& painter, const TextTable& table, const QRectF& box, const QFont& font);
// Lines one under another; with a `width`, a line wider than it wraps at spaces, its
// continuation indented. Returns the height drawn.
double drawLines(QPainter& painter, const QStringList& lines, const QPointF& at, const QFont& font, double width = 0);
// Lines in as many columns as the box's height needs; returns the height drawn.
double drawColumns(QPainter& painter, const QStringList& lines, const QRectF& box, const QFont& font);

}  // namespace tessera::ui
