#pragma once
// Chart tooltips that stay while the pointer rests. The charts show a point's exact
// figures with QToolTip from their hover signals; QGraphicsView then answers the
// rest-timer's own ToolTip event (about 0.7 s later) by hiding any tooltip, since no
// graphics item carries one. The filter lets the hover's tooltip stand instead: it
// goes when the pointer leaves what it describes (the hover signal says so).
#include <QChartView>
#include <QEvent>
#include <QToolTip>

namespace tessera::ui {

class HoverTipKeeper : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::ToolTip && QToolTip::isVisible()) return true;  // the hover's own tip stands
        return QObject::eventFilter(watched, event);
    }
};

inline void keepHoverTips(QChartView* view) { view->viewport()->installEventFilter(new HoverTipKeeper(view)); }

}  // namespace tessera::ui
