#include "mainwindow/mainwindow.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QStatusBar>

#include "io/presets.h"
#include "io/scenarioio.h"
#include "io/showreport.h"
#include "model/parameters.h"
#include "resolve/resolve.h"
#include "units/units.h"

namespace tessera::ui {

MainWindow::MainWindow(const QString& scenarioPath, QWidget* parent) : QMainWindow(parent) {
    m_text = new QPlainTextEdit(this);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setCentralWidget(m_text);
    resize(1000, 760);
    load(scenarioPath);
}

void MainWindow::load(const QString& scenarioPath) {
    using namespace tessera::core;
    const QString title = scenarioPath.isEmpty() ? QString::fromLatin1(kDefaultScenario) : scenarioPath;
    setWindowTitle(tr("%1 - Tessera").arg(title));
    try {
        const ResolvedScenario r = resolve(scenarioPath.isEmpty() ? presetScenario(kDefaultScenario)
                                                                  : loadScenario(scenarioPath.toStdString()));
        m_text->setPlainText(QString::fromStdString(showText(r)));
        const ParameterCount count = countParameters(r.scenario.model);
        statusBar()->showMessage(tr("%1 parameters · %2 devices · layers per stage resolved")
                                     .arg(QString::fromStdString(withThousands(count.total())))
                                     .arg(*r.scenario.cluster.devices));
    } catch (const SpecError& e) {
        m_text->setPlainText(tr("This scenario cannot be used:\n\n%1").arg(QString::fromStdString(e.what())));
        statusBar()->showMessage(tr("%n problem(s)", nullptr, static_cast<int>(e.diagnostics().size())));
    }
}

}  // namespace tessera::ui
