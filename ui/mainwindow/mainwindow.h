#pragma once
// The main window. For now it shows the resolved scenario (what `tessera show`
// prints) or, for a file that does not load, every problem with it; the forms and
// views arrive with the desktop-app issue.
#include <QMainWindow>

class QPlainTextEdit;

namespace tessera::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // An empty path opens the embedded default scenario.
    explicit MainWindow(const QString& scenarioPath, QWidget* parent = nullptr);

private:
    void load(const QString& scenarioPath);
    QPlainTextEdit* m_text = nullptr;
};

}  // namespace tessera::ui
