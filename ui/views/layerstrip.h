#pragma once
// Under the Memory view's bars: each stage's layers as a strip of cells, one per
// layer in the order the stage runs them, shaded by what the layer recomputes (one
// grey per option, darker with more recompute, a legend under the strips), each stage's strip under its bar.
// A layer whose activations go to the host is hatched (legend too). A tooltip names
// the layer, its kind, its stage and chunk, its option and its offload; it is
// shown from the widget's own tooltip event, so it stays while the pointer rests.
#include <QStringList>
#include <QWidget>
#include <vector>

class QChartView;

namespace tessera::ui {

class LayerStrip : public QWidget {
    Q_OBJECT
public:
    struct Cell {
        qint64 layer = 0;
        int chunk = 0;
        int option = 0;  // index into options()
        QString kind;
        bool offloaded = false;  // drawn hatched
    };
    // `chart`: the view whose bar categories the stages' strips sit under.
    explicit LayerStrip(QChartView* chart, QWidget* parent = nullptr);

    void setStages(std::vector<std::vector<Cell>> stages, QStringList options);
    // The chart view has a new chart: follow its plot area.
    void followChart();
    const std::vector<std::vector<Cell>>& stages() const { return m_stages; }
    const QStringList& options() const { return m_options; }
    // The tooltip at a point of the widget (empty off every cell).
    QString cellText(QPoint at) const;
    // Where stage s's cell i is drawn.
    QRectF cellRect(std::size_t stage, std::size_t cell) const;
    // Option `option`'s shade: none lightest, full darkest, the selective ones between.
    QColor optionColour(int option) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QRectF stageBand(std::size_t stage) const;  // the stage's category, in this widget's coordinates

    QChartView* m_chart;
    std::vector<std::vector<Cell>> m_stages;
    QStringList m_options;
};

}  // namespace tessera::ui
