#include "views/layerstrip.h"

#include <algorithm>

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include "style/palette.h"

namespace tessera::ui {

namespace {
constexpr int kCellTop = 2, kCellHeight = 16, kCountHeight = 14, kLegendHeight = 18;
}

LayerStrip::LayerStrip(QChartView* chart, QWidget* parent) : QWidget(parent), m_chart(chart) {
    setObjectName(QStringLiteral("layerStrip"));
    setMinimumHeight(kCellTop + kCellHeight + kCountHeight + kLegendHeight + 4);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setMouseTracking(true);
    // The strips follow the bars: redraw when the chart view is resized or relaid out.
    m_chart->installEventFilter(this);
}

void LayerStrip::setStages(std::vector<std::vector<Cell>> stages, QStringList options) {
    m_stages = std::move(stages);
    m_options = std::move(options);
    followChart();
}

void LayerStrip::followChart() {
    if (QChart* c = m_chart->chart()) connect(c, &QChart::plotAreaChanged, this, qOverload<>(&QWidget::update), Qt::UniqueConnection);
    update();
}

QColor LayerStrip::optionColour(int option) const {
    // A grey ramp, darker with more recompute: none lightest, full darkest, the selective
    // options between (a grey cannot be read as one of the memory terms' colours above).
    const QString& name = m_options.value(option);
    if (name == QLatin1String("none")) return QColor(0xF2, 0xF2, 0xF2);
    if (name == QLatin1String("full")) return QColor(0x30, 0x30, 0x30);
    int partial = 0, index = 0;
    for (int o = 0; o < m_options.size(); ++o) {
        if (m_options[o] == QLatin1String("none") || m_options[o] == QLatin1String("full")) continue;
        if (o == option) index = partial;
        ++partial;
    }
    const int v = partial <= 1 ? 0x98 : 0xC0 - (0xC0 - 0x70) * index / (partial - 1);
    return QColor(v, v, v);
}

QRectF LayerStrip::stageBand(std::size_t stage) const {
    QChart* chart = m_chart->chart();
    if (!chart || m_stages.empty()) return {};
    const QRectF plot = chart->plotArea();
    const QPoint left = mapFromGlobal(m_chart->viewport()->mapToGlobal(m_chart->mapFromScene(plot.topLeft())));
    const QPoint right = mapFromGlobal(m_chart->viewport()->mapToGlobal(m_chart->mapFromScene(plot.topRight())));
    const double width = double(right.x() - left.x()) / double(m_stages.size());
    // The middle 80 % of the stage's category: a little wider than its bar (0.6).
    return QRectF(left.x() + width * (double(stage) + 0.1), kCellTop, width * 0.8, kCellHeight);
}

QRectF LayerStrip::cellRect(std::size_t stage, std::size_t cell) const {
    const QRectF band = stageBand(stage);
    const std::size_t n = m_stages[stage].size();
    if (band.isEmpty() || n == 0) return {};
    const double w = band.width() / double(n);
    return QRectF(band.left() + w * double(cell), band.top(), w, band.height());
}

void LayerStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QColor ink = colours::ink();
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
    p.setFont(small);
    for (std::size_t s = 0; s < m_stages.size(); ++s) {
        const QRectF band = stageBand(s);
        if (band.isEmpty()) continue;
        for (std::size_t i = 0; i < m_stages[s].size(); ++i) {
            const QRectF r = cellRect(s, i);
            const QRectF cell = r.adjusted(0, 0, r.width() > 4 ? -1 : 0, 0);
            p.fillRect(cell, optionColour(m_stages[s][i].option));
            if (m_stages[s][i].offloaded) p.fillRect(cell, QBrush(ink, Qt::BDiagPattern));
        }
        p.setPen(ink);
        p.setBrush(Qt::NoBrush);
        p.drawRect(band);
        // No text layer: only a stage before the end of a vision tower split over stages
        // (exec.vision_partition) holds none.
        if (m_stages[s].empty()) p.drawText(band, Qt::AlignCenter, tr("vision tower only"));
        // "20 layers" where the band has room for it, else the bare count (pp 16 on a narrow
        // window), so neighbouring labels never run into each other.
        const QString words = m_stages[s].size() == 1 ? tr("1 layer") : tr("%1 layers").arg(m_stages[s].size());
        const QString text = p.fontMetrics().horizontalAdvance(words) + 4 <= band.width() ? words : QString::number(m_stages[s].size());
        const QRectF count(band.left() - 4, band.bottom() + 1, band.width() + 8, kCountHeight);
        p.drawText(count, Qt::AlignHCenter | Qt::AlignTop, text);
    }
    // The legend: one swatch per option, in the options' order.
    double x = 4;
    const double y = kCellTop + kCellHeight + kCountHeight + 2;
    p.drawText(QRectF(x, y, 200, kLegendHeight - 2), Qt::AlignVCenter | Qt::AlignLeft, tr("layers recompute:"));
    x += p.fontMetrics().horizontalAdvance(tr("layers recompute:")) + 10;
    for (int o = 0; o < m_options.size(); ++o) {
        p.fillRect(QRectF(x, y + 3, 12, 10), optionColour(o));
        p.drawRect(QRectF(x, y + 3, 12, 10));
        x += 16;
        p.drawText(QRectF(x, y, 400, kLegendHeight - 2), Qt::AlignVCenter | Qt::AlignLeft, m_options[o]);
        x += p.fontMetrics().horizontalAdvance(m_options[o]) + 14;
    }
    const bool anyOffloaded = std::any_of(m_stages.begin(), m_stages.end(), [](const auto& stage) {
        return std::any_of(stage.begin(), stage.end(), [](const Cell& c) { return c.offloaded; });
    });
    if (anyOffloaded) {
        p.fillRect(QRectF(x, y + 3, 12, 10), QBrush(ink, Qt::BDiagPattern));
        p.drawRect(QRectF(x, y + 3, 12, 10));
        p.drawText(QRectF(x + 16, y, 400, kLegendHeight - 2), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("hatched: activations offloaded to the host"));
    }
}

QString LayerStrip::cellText(QPoint at) const {
    for (std::size_t s = 0; s < m_stages.size(); ++s)
        for (std::size_t i = 0; i < m_stages[s].size(); ++i)
            if (cellRect(s, i).contains(at)) {
                const Cell& c = m_stages[s][i];
                QString option = m_options.value(c.option);
                if (option.startsWith(QLatin1String("recompute "))) option = option.mid(10);  // "recompute: normOp, attUp"
                return tr("Layer %1 (%2) · stage %3, chunk %4 · recompute: %5%6")
                    .arg(c.layer).arg(c.kind).arg(s).arg(c.chunk).arg(option)
                    .arg(c.offloaded ? tr(" · activations offloaded to the host") : QString());
            }
    return {};
}

bool LayerStrip::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = cellText(help->pos());
        if (text.isEmpty()) QToolTip::hideText(), event->ignore();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

bool LayerStrip::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_chart && (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest)) update();
    return QWidget::eventFilter(watched, event);
}

}  // namespace tessera::ui
