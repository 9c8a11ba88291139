// tessera: the command line when the first argument names a command, the desktop
// app otherwise. The CLI never creates a QApplication, so it runs on machines
// without a display.
#include <QApplication>
#include <QIcon>
#include <string>
#include <vector>

#include "cli.h"
#include "screenshot.h"
#include "mainwindow/mainwindow.h"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (tessera::app::isCliInvocation(args)) return tessera::app::runCli(args);

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Tessera"));
    QApplication::setOrganizationName(QStringLiteral("Tessera"));
    QApplication::setOrganizationDomain(QStringLiteral("tessera.github.io"));
    // The installed desktop entry and icon (packaging/): docks match the window to them.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.tessera.Tessera"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.tessera.Tessera")));
    QApplication::setApplicationVersion(QStringLiteral(TESSERA_VERSION));
    if (tessera::app::isReportInvocation(app.arguments().mid(1))) return tessera::app::runReport(app.arguments().mid(1));
    if (tessera::app::isScreenshotInvocation(app.arguments().mid(1)))
        return tessera::app::runScreenshot(app.arguments().mid(1));
    const QStringList positional = app.arguments().mid(1);
    tessera::ui::MainWindow window(positional.isEmpty() ? QString() : positional.first());
    window.show();
    window.offerRecovery();  // after a crash: the unsaved changes it autosaved
    return app.exec();
}
