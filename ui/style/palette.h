#pragma once
// One colour per meaning, everywhere (UI.md "Colours and marks"): the Okabe-Ito
// colour-blind-safe palette.
#include <QColor>
#include <QGuiApplication>
#include <QPalette>
#include <QString>
#include <iterator>

namespace tessera::ui::colours {

inline const QColor kParameters{0x00, 0x72, 0xB2};       // blue
inline const QColor kGradients{0x56, 0xB4, 0xE9};        // sky
inline const QColor kOptimizerStates{0x00, 0x9E, 0x73};  // bluish green
inline const QColor kMasterCopy{0xF0, 0xE4, 0x42};       // yellow
inline const QColor kActivations{0xD5, 0x5E, 0x00};      // vermillion
inline const QColor kBuffers{0xCC, 0x79, 0xA7};          // reddish purple
inline const QColor kWorking{0xE6, 0x9F, 0x00};          // orange
inline const QColor kReserve{0xBB, 0xBB, 0xBB};          // grey: kept free, held by nothing
inline const QColor kOverLimit{0xD5, 0x00, 0x00};        // red: outlines and labels, never fill alone

// The colour of memory term i of core::kMemoryTerms (parameters .. working set).
inline QColor termColour(std::size_t term) {
    const QColor colours[] = {kParameters, kGradients, kOptimizerStates, kMasterCopy, kActivations, kBuffers, kWorking, kReserve};
    return term < std::size(colours) ? colours[term] : kOverLimit;
}

// A field, a label or a count that is wrong or over the limit.
inline QString problemBorder() { return QStringLiteral("border: 2px solid %1;").arg(kOverLimit.name().toUpper()); }
inline QString problemLabel() { return QStringLiteral("color: %1; font-weight: bold;").arg(kOverLimit.name().toUpper()); }
// A field read and shown but not priced: greyed, never hidden.
inline QString unpricedLabel() { return QStringLiteral("color: #888888; font-style: italic;"); }

// Whether the application runs a dark palette: charts then take Qt Charts' dark
// theme, and marks drawn in "ink" take the palette's text colour.
inline bool darkPalette() { return QGuiApplication::palette().color(QPalette::Window).lightness() < 128; }
inline QColor ink() { return QGuiApplication::palette().color(QPalette::WindowText); }

}  // namespace tessera::ui::colours
