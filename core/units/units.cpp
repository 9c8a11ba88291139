#include "units/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tessera::core {

namespace {

struct Suffix {
    std::string_view name;
    Bytes factor;
};

constexpr std::array<Suffix, 10> kSuffixes{{{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB}, {"TiB", TiB},
                                            {"KB", KiB}, {"MB", MiB}, {"GB", GiB}, {"TB", TiB},
                                            {"B", 1}, {"", 1}}};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::optional<Bytes> parseMemory(std::string_view text) {
    text = trim(text);
    for (const Suffix& suffix : kSuffixes) {
        if (text.size() < suffix.name.size() || !text.ends_with(suffix.name)) continue;
        std::string_view number = trim(text.substr(0, text.size() - suffix.name.size()));
        if (number.empty()) return std::nullopt;
        // Whole numbers exactly, so "81559 MiB" is not rounded through a double.
        Bytes whole = 0;
        auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), whole);
        if (ec == std::errc{} && end == number.data() + number.size()) {
            if (whole < 0 || whole > std::numeric_limits<Bytes>::max() / suffix.factor) return std::nullopt;
            return whole * suffix.factor;
        }
        double value = 0;
        auto [dend, dec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (dec != std::errc{} || dend != number.data() + number.size()) return std::nullopt;
        const double bytes = value * static_cast<double>(suffix.factor);
        if (!std::isfinite(bytes) || bytes < 0 || bytes >= 9.2e18 || bytes != std::floor(bytes))
            return std::nullopt;
        return static_cast<Bytes>(bytes);
    }
    return std::nullopt;
}

std::string memoryText(Bytes bytes) {
    for (const auto& [name, factor] : {std::pair{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}}) {
        if (bytes != 0 && bytes % factor == 0) return std::to_string(bytes / factor) + " " + name;
    }
    return std::to_string(bytes) + " B";
}

std::string gibNumber(Bytes bytes, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, static_cast<double>(bytes) / static_cast<double>(GiB));
    return buffer;
}

std::string formatGiB(Bytes bytes) { return gibNumber(bytes) + " GiB"; }

std::string gibDelta(Bytes now, Bytes then, int decimals) {
    const Bytes d = now - then;
    return (d >= 0 ? "+" : "\u2212") + gibNumber(d >= 0 ? d : -d, decimals);
}

std::string formatSeconds(double seconds) {
    if (!std::isfinite(seconds)) return "n/a";
    auto three = [](double v, const char* unit) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.*f %s", v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2, v, unit);
        return std::string(buffer);
    };
    const double magnitude = std::abs(seconds);
    if (magnitude == 0) return "0 s";  // nothing, not a measured "0.00 s"
    if (magnitude >= 0.9995) return three(seconds, "s");
    if (magnitude >= 0.0009995) return three(seconds * 1e3, "ms");
    return three(seconds * 1e6, "\u00b5s");
}

std::string withThousands(std::int64_t value) {
    std::string digits = std::to_string(value < 0 ? -(value + 1) + 1ULL : static_cast<unsigned long long>(value));
    std::string out;
    const int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
        out += digits[i];
        if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
    }
    return value < 0 ? "-" + out : out;
}

std::string countText(double value) {
    if (!std::isfinite(value)) return value != value ? "n/a" : value > 0 ? "inf" : "-inf";
    if (std::abs(value) >= 9.2e18) return formatText("%.3g", value);
    return withThousands(std::llround(value));
}

std::string shortCount(std::int64_t value) {
    static const struct { double scale; const char* suffix; } kScales[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
    for (const auto& s : kScales) {
        if (double(value) < s.scale) continue;
        const double x = double(value) / s.scale;
        std::string text = formatText(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
        if (text.find('.') != std::string::npos) {
            while (text.back() == '0') text.pop_back();
            if (text.back() == '.') text.pop_back();
        }
        return text + s.suffix;
    }
    return std::to_string(value);
}

std::string formatDays(double days) {
    if (!std::isfinite(days)) return "n/a";
    if (days < 1) return formatText("%.1f hours", days * 24);
    return formatText(days >= 100 ? "%.0f days" : "%.1f days", days);
}

std::string numberText(double value) {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc{} ? std::string(buffer, end) : std::string("nan");
}

}  // namespace tessera::core
