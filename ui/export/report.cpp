#include "export/report.h"
#include "export/reviewmode.h"
#include "export/savefile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFontMetrics>
#include <algorithm>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSaveFile>

#include "forms/scenarioeditor.h"
#include "doc/emit.h"
#include "mainwindow/mainwindow.h"
#include "views/timelinewidget.h"

namespace tessera::ui {

QString scenarioHash(const MainWindow& window) {
    const std::string yaml = core::toYaml(window.editor()->document());
    return QString::fromLatin1(QCryptographicHash::hash(QByteArray::fromStdString(yaml), QCryptographicHash::Sha256).toHex().left(12));
}

QStringList titleBlock(const MainWindow& window) {
    const QString estimateText = qobject_cast<QPlainTextEdit*>(window.view("estimate"))->toPlainText();
    const QStringList head = estimateText.split('\n');
    return {head.value(0), head.value(1),
            QObject::tr("%1 · scenario %2").arg(QDateTime::currentDateTime().toString("yyyy-MM-dd hh:mm"), scenarioHash(window))};
}

QImage reviewPicture(MainWindow& window, QWidget* view, QSize size) {
    QWidget* target = view ? view : &window;
    const QFont head = reviewFont(10, true), body = reviewFont(9);
    const int lineHeight = QFontMetrics(body).height();
    const int strip = 3 * lineHeight + 12;
    // The view gets what the title block leaves of the asked size.
    window.resize(size.width(), std::max(100, size.height() - strip) + (view ? window.height() - view->height() : 0));
    target->resize(size.width(), size.height() - strip);
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    const QStringList lines = titleBlock(window);
    int y = 6 + QFontMetrics(head).ascent();
    for (int i = 0; i < lines.size(); ++i) {
        p.setFont(i == 0 ? head : body);
        p.setPen(i == 0 ? Qt::black : QColor(60, 60, 60));
        p.drawText(10, y, lines[i]);
        y += lineHeight;
    }
    p.setPen(QColor(200, 200, 200));
    p.drawLine(0, strip - 1, size.width(), strip - 1);
    target->render(&p, QPoint(0, strip));
    return image;
}

namespace {

// Draw a widget scaled into `box`, keeping its proportions.
void drawWidget(QPainter& p, QWidget* w, const QRectF& box) {
    const QPixmap image = w->grab();
    const QSizeF size = QSizeF(image.size()).scaled(box.size(), Qt::KeepAspectRatio);
    p.drawPixmap(QRectF(box.topLeft(), size), image, image.rect());
}

}  // namespace

bool writeReport(MainWindow& window, const QString& path, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = file.errorString();
        return false;
    }
    {
        QPdfWriter pdf(&file);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageOrientation(QPageLayout::Landscape);
        pdf.setResolution(150);
        pdf.setTitle(QStringLiteral("Tessera capacity review"));
        pdf.setCreator(QStringLiteral("Tessera"));
        QPainter p(&pdf);
        const QRectF page(0, 0, pdf.width(), pdf.height());
        const double line = pdf.resolution() * 0.22;
        const QFont title = reviewFont(16, true);
        const QFont body = reviewFont(9);

        // Title block: what the pictures show, when, and from which input.
        const QStringList head = titleBlock(window);
        p.setFont(title);
        p.drawText(QPointF(0, line), QObject::tr("Tessera capacity review"));
        p.setFont(body);
        double y = line * 2.2;
        for (const QString& text : head) {
            p.drawText(QPointF(0, y), text);
            y += line;
        }
        const QStringList estimateLines = qobject_cast<QPlainTextEdit*>(window.view("estimate"))->toPlainText().split('\n');
        for (const QString& text : estimateLines.filter(QRegularExpression("^(Peak|Step|Where|Parameters)"))) {
            p.drawText(QPointF(0, y), text);
            y += line;
        }
        // Page 1: memory. Then the pipeline, the Pareto front and the strategies, a page each.
        window.showView("memory");
        drawWidget(p, window.view("memory"), QRectF(0, y + line * 0.5, page.width(), page.height() - y - line));
        pdf.newPage();
        // The timeline drawn for the page: as wide as it, lanes as tall as they read;
        // where the step goes below it.
        auto* shown = window.view("pipeline")->findChild<TimelineWidget*>();
        TimelineWidget timeline;
        timeline.setPipeline(shown->pipeline());
        timeline.setTitle(shown->title());
        timeline.resize(1800, timeline.naturalHeight());
        const double timelineHeight = std::min(page.height() * 0.62, page.width() * timeline.height() / timeline.width());
        drawWidget(p, &timeline, QRectF(0, 0, page.width(), timelineHeight));
        window.showView("pipeline");
        drawWidget(p, window.view("pipeline")->findChild<QWidget*>("stepChart"),
                   QRectF(0, timelineHeight + line, page.width(), page.height() - timelineHeight - line));
        pdf.newPage();
        window.showView("pareto");
        drawWidget(p, window.view("pareto"), QRectF(0, 0, page.width(), page.height()));
        pdf.newPage();
        window.showView("candidates");
        drawWidget(p, window.view("candidates"), QRectF(0, 0, page.width(), page.height()));
        p.end();
    }
    return commitWhole(file, error);
}

}  // namespace tessera::ui
