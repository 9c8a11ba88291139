#include "screenshot.h"

#include <QApplication>
#include <QFileInfo>
#include <QImage>
#include <QPixmap>
#include <QTimer>
#include <cstdio>

#include "cli.h"
#include "export/report.h"
#include "session/session.h"
#include "style/reviewmode.h"
#include "mainwindow/mainwindow.h"

namespace tessera::app {

namespace {

// A file that cannot be read ends the command like every other one (exit 1, the same
// message); a file that reads but is refused still gets its picture, showing the
// problems, and exits 2.
bool unreadable(const tessera::ui::MainWindow& window) {
    if (window.unreadable().isEmpty()) return false;
    std::fprintf(stderr, "%s\n", qPrintable(window.unreadable()));
    return true;
}

}  // namespace

bool isScreenshotInvocation(const QStringList& args) { return args.contains(QStringLiteral("--screenshot")); }
bool isReportInvocation(const QStringList& args) { return !args.isEmpty() && args.first() == QStringLiteral("report"); }

int runReport(const QStringList& args) {
    QString file, output;
    bool force = false;
    for (int i = 1; i < args.size(); ++i) {
        if ((args[i] == QLatin1String("-o") || args[i] == QLatin1String("--output")) && i + 1 < args.size()) output = args[++i];
        else if (args[i] == QLatin1String("--force")) force = true;
        else if (args[i].startsWith(QLatin1Char('-')) || !file.isEmpty()) {
            std::fprintf(stderr, "tessera: report FILE -o REPORT.pdf [--force]\n");
            return kExitUsage;
        } else file = args[i];
    }
    if (file.isEmpty() || output.isEmpty()) {
        std::fprintf(stderr, "tessera: report FILE -o REPORT.pdf [--force]\n");
        return kExitUsage;
    }
    if (QFileInfo::exists(output) && !force) {
        std::fprintf(stderr, "tessera: %s exists; pass --force to replace it\n", qPrintable(output));
        return kExitFailure;
    }
    tessera::ui::enterReviewMode(*qApp);
    // No window: the review is built from the session's values.
    tessera::ui::Session session;
    if (!session.load(file)) {
        std::fprintf(stderr, "%s\n", qPrintable(session.unreadable()));
        return kExitFailure;
    }
    if (!session.evaluationIsCurrent()) {
        for (const tessera::core::Diagnostic& d : session.problems()) std::fprintf(stderr, "%s\n", d.text().c_str());
        return kExitInvalid;
    }
    int status = kExitOk;
    QObject::connect(&session, &tessera::ui::Session::searchFinished, &session, [&] {
        QString error;
        if (!tessera::ui::writeReport(tessera::ui::reviewOf(session), output, &error)) {
            std::fprintf(stderr, "tessera: cannot write %s: %s\n", qPrintable(output), qPrintable(error));
            status = kExitFailure;
        }
        QApplication::quit();
    });
    session.startSearch();  // the default space when the file states none, as `tessera search`
    QApplication::exec();
    return status;
}

int runScreenshot(const QStringList& args) {
    QString output, file, viewName = QStringLiteral("window");
    QSize size(1600, 1000);
    bool dark = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        auto value = [&]() -> QString {
            if (i + 1 >= args.size()) return {};
            return args[++i];
        };
        if (a == QLatin1String("--screenshot")) output = value();
        else if (a == QLatin1String("--view")) viewName = value();
        else if (a == QLatin1String("--palette")) {
            const QString p = value();
            if (p != QLatin1String("light") && p != QLatin1String("dark")) {
                std::fprintf(stderr, "tessera: --palette takes light or dark\n");
                return kExitUsage;
            }
            dark = p == QLatin1String("dark");
        } else if (a == QLatin1String("--size")) {
            const QStringList parts = value().split(u'x');
            bool okW = false, okH = false;
            if (parts.size() == 2) size = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
            if (!okW || !okH || size.width() < 200 || size.height() < 150 || size.width() > 10000 || size.height() > 10000) {
                std::fprintf(stderr, "tessera: --size takes WIDTHxHEIGHT between 200x150 and 10000x10000\n");
                return kExitUsage;
            }
        } else if (a.startsWith(u'-')) {
            std::fprintf(stderr, "tessera: unknown option %s\n", qPrintable(a));
            return kExitUsage;
        } else if (file.isEmpty()) {
            file = a;
        }
    }
    if (output.isEmpty()) {
        std::fprintf(stderr, "tessera: --screenshot needs an output file\n");
        return kExitUsage;
    }
    tessera::ui::enterReviewMode(*qApp, dark);
    tessera::ui::MainWindow window(file, nullptr, false);  // review pictures: never the last session's file
    window.setNeverAsk(true);
    if (unreadable(window)) return kExitFailure;
    if (viewName != QLatin1String("window") && !window.showView(viewName)) {
        std::fprintf(stderr, "tessera: --view takes memory, pipeline, pareto, candidates, estimate, scenario or window\n");
        return kExitUsage;
    }
    window.resize(size);
    window.show();
    QWidget* view = viewName == QLatin1String("window") ? nullptr : window.view(viewName);
    int status = kExitOk;
    // Grab once the event loop has laid everything out and painted - after the
    // scenario's search, for the views that show one.
    auto grab = [&] {
        const QImage image = window.reviewPicture(view, size);
        if (!image.save(output)) {
            std::fprintf(stderr, "tessera: cannot write %s\n", qPrintable(output));
            status = kExitFailure;
        } else if (!window.loaded()) {
            status = kExitInvalid;  // the picture shows the problems; the exit code says so
        }
        QApplication::quit();
    };
    if (viewName == QLatin1String("pareto") || viewName == QLatin1String("candidates")) {
        QObject::connect(&window, &tessera::ui::MainWindow::searchFinished, &window, [&] { QTimer::singleShot(0, &window, grab); });
        window.startSearch();
    } else if (window.session().adviceIsPending()) {  // the fit panel's advice is priced on a worker: wait for it
        QObject::connect(&window.session(), &tessera::ui::Session::adviceChanged, &window, [&] {
            if (!window.session().adviceIsPending()) QTimer::singleShot(0, &window, grab);
        });
    } else {
        QTimer::singleShot(0, &window, grab);
    }
    QApplication::exec();
    return status;
}

}  // namespace tessera::app
