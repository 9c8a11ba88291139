#pragma once
// Core's display text (units/units.h) as QString: one formatter for seconds and one
// for GiB in the whole program.
#include <QLocale>
#include <QString>
#include <cmath>
#include <string>

#include "units/units.h"

namespace tessera::ui {

inline QString qs(const std::string& text) { return QString::fromStdString(text); }
// "13.5 s", "76.8 ms", "50.0 µs".
inline QString secondsText(double seconds) { return qs(core::formatSeconds(seconds)); }
// "61.2" (a column or axis says GiB).
inline QString gibText(core::Bytes bytes, int decimals = 1) { return qs(core::gibNumber(bytes, decimals)); }
// "1 problem", "3 problems".
inline QString problemCount(std::size_t n) {
    return n == 1 ? QStringLiteral("1 problem") : QStringLiteral("%1 problems").arg(n);
}
// A count in the user's locale ("1,234,567"); past what int64 holds (a hostile input) in
// three significant figures, never a wrapped negative.
inline QString countText(double value) {
    if (std::isfinite(value) && std::abs(value) < 9.2e18) return QLocale().toString(qlonglong(std::llround(value)));
    return qs(core::countText(value));
}
// "+1.5", "−3.1".
inline QString gibDeltaText(core::Bytes now, core::Bytes then, int decimals = 1) { return qs(core::gibDelta(now, then, decimals)); }

}  // namespace tessera::ui
