#pragma once
// Headless pictures for scripts and CI:
//   tessera --screenshot OUT.png [FILE] [--view memory|pipeline|pareto|candidates|estimate|scenario|window] [--size 1600x1000]
// works with QT_QPA_PLATFORM=offscreen; the Pareto and candidates views run the
// scenario's search first (every dimension, when it states no search). The window is built, laid out by the event
// loop, grabbed once it is idle, and saved; the exit code says whether that worked.
#include <QStringList>

namespace tessera::app {

bool isScreenshotInvocation(const QStringList& args);
bool isReportInvocation(const QStringList& args);
// Runs inside an existing QApplication; returns the process exit code.
int runScreenshot(const QStringList& args);
// tessera report FILE -o REPORT.pdf: the capacity-review PDF, after the scenario's search.
int runReport(const QStringList& args);

}  // namespace tessera::app
