#pragma once
// A tab whose picture is costly to build (a chart takes most of an edit's time): it is
// rebuilt when its values change while it is shown, else when it is next shown.
#include <QWidget>

namespace tessera::ui {

class LazyView : public QWidget {
public:
    using QWidget::QWidget;

protected:
    // The values changed: rebuild now if shown, else on the next show.
    void invalidate() {
        m_stale = true;
        if (isVisible()) redraw();
    }
    void showEvent(QShowEvent* event) override {
        QWidget::showEvent(event);
        if (m_stale) redraw();
    }
    virtual void rebuild() = 0;

private:
    void redraw() {
        m_stale = false;
        rebuild();
    }
    bool m_stale = true;
};

}  // namespace tessera::ui
