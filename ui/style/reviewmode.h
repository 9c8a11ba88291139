#pragma once
// Review mode (UI.md): pictures and PDFs for capacity reviews look the same on every
// machine - the light palette, the Fusion style and a font compiled into the binary
// (DejaVu Sans from Debian's fonts-dejavu-core, embedded at build time), whatever
// the desktop's theme and installed fonts.
#include <QFont>

class QApplication;

namespace tessera::ui {

// The bundled font at `pointSize` (loaded on first use).
QFont reviewFont(double pointSize = 9, bool bold = false);
QFont reviewMonoFont(double pointSize = 9);

// Switch the whole application to review mode: for headless screenshots and reports.
// `dark` takes a dark Fusion palette instead (pictures for a dark slide deck, and to
// check that every view reads on a dark desktop); reports stay light for print.
void enterReviewMode(QApplication& app, bool dark = false);
bool inReviewMode();
// The font for text views: the bundled monospace in review mode, the system's otherwise.
QFont fixedFont();

}  // namespace tessera::ui
