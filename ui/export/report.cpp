#include "export/report.h"
#include "export/savefile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSaveFile>

#include "forms/scenarioeditor.h"
#include "io/emit.h"
#include "mainwindow/mainwindow.h"
#include "views/timelinewidget.h"

namespace tessera::ui {

QString scenarioHash(const MainWindow& window) {
    const std::string yaml = core::toYaml(window.editor()->document());
    return QString::fromLatin1(QCryptographicHash::hash(QByteArray::fromStdString(yaml), QCryptographicHash::Sha256).toHex().left(12));
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
        QFont title = p.font();
        title.setPointSizeF(16);
        title.setBold(true);
        QFont body = p.font();
        body.setPointSizeF(9);

        // Title block: what the pictures show, when, and from which input.
        const QString estimateText = qobject_cast<QPlainTextEdit*>(window.view("estimate"))->toPlainText();
        const QStringList head = estimateText.split('\n');
        p.setFont(title);
        p.drawText(QPointF(0, line), QObject::tr("Tessera capacity review"));
        p.setFont(body);
        double y = line * 2.2;
        for (const QString& text : {head.value(0), head.value(1),
                                    QObject::tr("%1 · scenario %2").arg(QDateTime::currentDateTime().toString("yyyy-MM-dd hh:mm"),
                                                                        scenarioHash(window))}) {
            p.drawText(QPointF(0, y), text);
            y += line;
        }
        for (const QString& text : head.filter(QRegularExpression("^(Peak|Step|Where|Parameters)"))) {
            p.drawText(QPointF(0, y), text);
            y += line;
        }
        // Page 1: memory. Then the pipeline, the Pareto front and the strategies, a page each.
        window.showView("memory");
        drawWidget(p, window.view("memory"), QRectF(0, y + line * 0.5, page.width(), page.height() - y - line));
        pdf.newPage();
        // The timeline drawn for the page: as wide as it, lanes as tall as they read.
        auto* shown = static_cast<TimelineWidget*>(window.view("pipeline"));
        TimelineWidget timeline;
        timeline.setPipeline(shown->pipeline());
        timeline.setTitle(shown->title());
        timeline.resize(1800, 140 + 60 * std::max(1, int(shown->pipeline().busy.size())));
        drawWidget(p, &timeline, QRectF(0, 0, page.width(), page.height()));
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
