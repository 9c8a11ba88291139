// tessera: the command line when the first argument names a command, the desktop
// app otherwise. The CLI never creates a QApplication, so it runs on machines
// without a display.
#include <QApplication>
#include <QIcon>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "screenshot.h"
#include "mainwindow/mainwindow.h"

namespace {

// While QApplication starts: a display that is named but cannot be reached (DISPLAY=:99
// with no server) makes Qt's platform plugin fail with a fatal message and abort. Say so
// in Tessera's words and exit 1 instead; the plugin's own warning goes first, as the detail.
QtMessageHandler qtDefaultHandler = nullptr;
void startupMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type != QtFatalMsg) {
        if (qtDefaultHandler) qtDefaultHandler(type, context, message);
        return;
    }
    const QByteArray display = qgetenv("DISPLAY"), wayland = qgetenv("WAYLAND_DISPLAY");
    std::cerr << "tessera: cannot open the window: no usable display";
    if (!display.isEmpty()) std::cerr << " (DISPLAY=" << display.constData() << ")";
    if (!wayland.isEmpty()) std::cerr << " (WAYLAND_DISPLAY=" << wayland.constData() << ")";
    std::cerr << ".\nThe commands run without one (`tessera --help`); `tessera report FILE -o OUT.pdf` and\n"
                 "`tessera --screenshot OUT.png FILE` draw off screen with QT_QPA_PLATFORM=offscreen.\n";
    std::_Exit(tessera::app::kExitFailure);
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (tessera::app::isCliInvocation(args)) return tessera::app::runCli(args);
    if (const auto wrong = tessera::app::unknownCommand(args)) {
        std::cerr << "tessera: " << *wrong << "\n(`tessera --help` lists the commands)\n";
        return tessera::app::kExitUsage;
    }
    // A report or a screenshot draws off screen; the window needs a display, and without
    // one Qt's platform plugin would abort with a message about xcb.
    const bool drawsOffscreen = (!args.empty() && args[0] == "report") ||
                                std::find(args.begin(), args.end(), "--screenshot") != args.end();
    const bool platformStated = !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
    const bool display = !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (!platformStated && !display) {
        if (drawsOffscreen) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
        } else {
            std::cerr << "tessera: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                         "The commands run without one (`tessera --help`); `tessera report FILE -o OUT.pdf` and\n"
                         "`tessera --screenshot OUT.png FILE` draw off screen.\n";
            return tessera::app::kExitFailure;
        }
    }

    qtDefaultHandler = qInstallMessageHandler(startupMessages);
    QApplication app(argc, argv);
    qInstallMessageHandler(qtDefaultHandler);
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
