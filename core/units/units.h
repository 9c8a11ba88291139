#pragma once
// Units. Memory is counted in whole bytes (int64: 2^63 bytes is 8 EiB, far past any
// device), time in seconds and work in FLOPs (doubles). Binary prefixes only:
// GiB = 2^30 bytes. Display strings exist for text output; the engine never
// rounds through them.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::core {

using Bytes = std::int64_t;
using Flops = double;
using Seconds = double;

inline constexpr Bytes KiB = Bytes{1} << 10;
inline constexpr Bytes MiB = Bytes{1} << 20;
inline constexpr Bytes GiB = Bytes{1} << 30;
inline constexpr Bytes TiB = Bytes{1} << 40;

// Parses "80 GiB", "64GB", "81559 MiB", "1.5 TiB" or a bare byte count. As in
// HyperParallel's Memory.from_string, KB/MB/GB/TB are binary multiples too: a
// device's "80 GB" of HBM is 80 GiB. Returns nullopt for anything else,
// including negative, fractional-byte and overflowing amounts.
std::optional<Bytes> parseMemory(std::string_view text);

// "80 GiB" when exact in GiB, else the shortest exact MiB/KiB/B form; parseMemory
// reads it back to the same byte count.
std::string memoryText(Bytes bytes);

// The one place numbers become display text; the engine never rounds through them.
// "61.2 GiB" (one decimal), and the number alone ("61.2") for columns headed GiB.
std::string formatGiB(Bytes bytes);
std::string gibNumber(Bytes bytes, int decimals = 1);
// A signed difference in GiB: "+1.5", "−3.1" (U+2212), "+0.0" when equal.
std::string gibDelta(Bytes now, Bytes then, int decimals = 1);

// Three significant figures in the unit that keeps the number at least 1: "13.5 s",
// "76.8 ms", "50.0 µs", "123 s"; "n/a" when not finite.
std::string formatSeconds(double seconds);

// Thousands separators: 68,976,648,192.
std::string withThousands(std::int64_t value);
// A count held as a double, rounded, with separators; past what int64 holds (only a
// hostile input gets there) or not finite, in three significant figures ("6.1e+24"),
// never llround's wrapped -9,223,372,036,854,775,808.
std::string countText(double value);

// A count in short scale to three significant figures, for token budgets: "15T",
// "1.5T", "300B", "2.05M", "950" (T = 10^12, B = 10^9, M = 10^6, K = 10^3).
std::string shortCount(std::int64_t value);

// A duration a run takes, in days: "41.7 days", "2.3 days", "5.2 hours" below a day.
std::string formatDays(double days);

// Shortest text that reads back to the same double ("0.1", "989.4", "1e+21").
std::string numberText(double value);

// printf-style text of one line (at most 511 characters), for the reports' tables.
template <class... Args>
std::string formatText(const char* format, Args... args) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, args...);
    return buffer;
}

}  // namespace tessera::core
