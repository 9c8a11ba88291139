#include "export/reviewtables.h"

#include <QGraphicsLayout>
#include <QAbstractItemModel>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::ui {

TextTable tableOf(const QAbstractItemModel& model, int rows) {
    TextTable t;
    for (int c = 0; c < model.columnCount(); ++c) {
        t.headers << model.headerData(c, Qt::Horizontal).toString();
        const QVariant align = model.rowCount() ? model.index(0, c).data(Qt::TextAlignmentRole) : QVariant();
        if (align.isValid() && (align.toInt() & Qt::AlignRight)) t.rightAligned << c;
    }
    for (int r = 0; r < std::min(rows, model.rowCount()); ++r) {
        QStringList row;
        for (int c = 0; c < model.columnCount(); ++c) row << model.index(r, c).data().toString();
        t.rows << row;
    }
    return t;
}

void drawChart(QPainter& painter, QChart* chart, const QRectF& box, double scale, const std::function<void(QChart*)>& laidOut) {
    QGraphicsScene scene;  // owns the chart from here
    scene.addItem(chart);
    const QSizeF logical = box.size() / scale;
    chart->setGeometry(QRectF(QPointF(0, 0), logical));
    if (laidOut) {
        if (chart->layout()) chart->layout()->activate();  // the plot area now, not on the next event-loop turn
        laidOut(chart);
    }
    scene.setSceneRect(chart->geometry());
    scene.render(&painter, box, scene.sceneRect());
}

void drawWidget(QPainter& painter, QWidget& widget, const QRectF& box, double scale) {
    widget.resize((box.size() / scale).toSize());
    painter.save();
    painter.translate(box.topLeft());
    painter.scale(scale, scale);
    widget.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.restore();
}

double drawTable(QPainter& painter, const TextTable& t, const QRectF& box, const QFont& wanted) {
    // A table wider than its box is drawn smaller rather than cut at the right edge
    // (the memory table's Total column was lost on A4 landscape).
    QFont font = wanted;
    for (int shrink = 0; shrink < 4 && font.pointSizeF() > 0; ++shrink) {
        const QFontMetricsF m(font, painter.device());
        QFont b = font;
        b.setBold(true);
        const QFontMetricsF bm(b, painter.device());
        double total = 0;
        for (int c = 0; c < t.headers.size(); ++c) {
            double w = bm.horizontalAdvance(t.headers[c]);
            for (const QStringList& row : t.rows) w = std::max(w, m.horizontalAdvance(row.value(c)));
            total += w + m.averageCharWidth() * 1.5;
        }
        if (total <= box.width()) break;
        font.setPointSizeF(std::max(4.0, std::floor(font.pointSizeF() * box.width() / total * 10) / 10));
    }
    const QFontMetricsF metrics(font, painter.device());
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold, painter.device());
    const double pad = metrics.averageCharWidth() * 1.5, line = metrics.height() * 1.25;
    QList<double> widths;
    for (int c = 0; c < t.headers.size(); ++c) {
        double w = boldMetrics.horizontalAdvance(t.headers[c]);
        for (const QStringList& row : t.rows) w = std::max(w, metrics.horizontalAdvance(row.value(c)));
        widths << w + pad;
    }
    double y = box.top();
    auto drawRow = [&](const QStringList& cells, bool header) {
        double x = box.left();
        painter.setFont(header ? bold : font);
        for (int c = 0; c < widths.size(); ++c) {
            const QRectF cell(x, y, widths[c] - pad, line);
            const int align = (t.rightAligned.contains(c) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter;
            painter.drawText(cell, align, cells.value(c));
            x += widths[c];
        }
        y += line;
    };
    drawRow(t.headers, true);
    painter.drawLine(QPointF(box.left(), y), QPointF(std::min(box.right(), box.left() + std::accumulate(widths.begin(), widths.end(), 0.0)), y));
    for (const QStringList& row : t.rows) {
        if (y + line > box.bottom()) break;
        drawRow(row, false);
    }
    return y - box.top();
}

double drawLines(QPainter& painter, const QStringList& lines, const QPointF& at, const QFont& font, double width) {
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const double indent = metrics.horizontalAdvance(QStringLiteral("    "));
    double y = at.y();
    auto put = [&](const QString& text, double x) {
        y += metrics.height();
        painter.drawText(QPointF(x, y - metrics.descent()), text);
    };
    for (const QString& line : lines) {
        if (width <= 0 || metrics.horizontalAdvance(line) <= width) {
            put(line, at.x());
            continue;
        }
        // Greedy: as many words as fit; a word wider than the room goes on a line of its own.
        QString rest = line;
        double x = at.x(), room = width;
        while (!rest.isEmpty()) {
            qsizetype cut = rest.size();
            if (metrics.horizontalAdvance(rest) > room) {
                qsizetype lead = 0;  // a bullet's indent is not a place to break
                while (lead < rest.size() && rest[lead] == QLatin1Char(' ')) ++lead;
                const qsizetype first = rest.indexOf(QLatin1Char(' '), lead);
                cut = first > 0 ? first : rest.size();
                for (qsizetype space = first; space > 0 && metrics.horizontalAdvance(rest.left(space)) <= room;
                     space = rest.indexOf(QLatin1Char(' '), space + 1))
                    cut = space;
            }
            put(rest.left(cut), x);
            rest = rest.mid(cut).trimmed();
            x = at.x() + indent, room = width - indent;
        }
    }
    return y - at.y();
}

}  // namespace tessera::ui

namespace tessera::ui {

double drawColumns(QPainter& painter, const QStringList& lines, const QRectF& box, const QFont& font) {
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const int perColumn = std::max(1, int(box.height() / metrics.height()));
    const int columns = std::max(1, int((lines.size() + perColumn - 1) / perColumn));
    const double width = box.width() / columns;
    double bottom = box.top();
    for (int i = 0; i < lines.size(); ++i) {
        const int column = i / perColumn, row = i % perColumn;
        const double y = box.top() + (row + 1) * metrics.height();
        // Only a line wider than its column is shortened, and it says so with an ellipsis.
        painter.drawText(QPointF(box.left() + column * width, y - metrics.descent()),
                         metrics.elidedText(lines[i], Qt::ElideRight, width - metrics.averageCharWidth()));
        bottom = std::max(bottom, y);
    }
    return bottom - box.top();
}

}  // namespace tessera::ui
