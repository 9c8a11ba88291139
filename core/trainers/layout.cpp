#include "trainers/layout.h"

#include <algorithm>

#include "trainers/shared.h"

namespace tessera::core::trainers {

namespace {

constexpr std::size_t kMaxUnrolled = 1 << 20;  // a layout of a million layers is no pipeline

// "n" at text[at...] as a count, and where it ends; nullopt when there are no digits.
std::optional<std::pair<std::int64_t, std::size_t>> countAt(const std::string& text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && end - at < 9 && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == at) return std::nullopt;
    return std::pair{*wholeNumber(std::string_view(text).substr(at, end - at)), end};
}

// Megatron-LM's two unrolling passes: (...)*n, then x*n.
std::variant<std::string, std::string> unroll(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    for (std::size_t open; (open = s.find('(')) != std::string::npos;) {
        const std::size_t close = s.find(')', open);
        if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != '*') return std::variant<std::string, std::string>(std::in_place_index<1>, "a '(' without ')*n'");
        const auto n = countAt(s, close + 2);
        if (!n) return std::variant<std::string, std::string>(std::in_place_index<1>, "')*' without a count");
        const std::string body = s.substr(open + 1, close - open - 1);
        if (body.size() * std::size_t(n->first) > kMaxUnrolled) return std::variant<std::string, std::string>(std::in_place_index<1>, "unrolls past a million layers");
        std::string repeated;
        for (std::int64_t i = 0; i < n->first; ++i) repeated += body;
        s = s.substr(0, open) + repeated + s.substr(n->second);
    }
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i + 1] == '*') {
            const auto n = countAt(s, i + 2);
            if (!n) return std::variant<std::string, std::string>(std::in_place_index<1>, "'*' without a count");
            if (out.size() + std::size_t(n->first) > kMaxUnrolled) return std::variant<std::string, std::string>(std::in_place_index<1>, "unrolls past a million layers");
            out.append(std::size_t(n->first), s[i]);
            i = n->second - 1;
        } else {
            out += s[i];
        }
    }
    return std::variant<std::string, std::string>(std::in_place_index<0>, out);
}

}  // namespace

std::variant<StageGrid, std::string> parseLayout(std::string_view text, std::int64_t pp, std::int64_t decoderLayers,
                                                 std::int64_t mtpLayers) {
    const auto unrolled = unroll(std::string(text));
    if (unrolled.index() == 1) return std::get<1>(unrolled);
    const std::string& flat = std::get<0>(unrolled);
    std::vector<std::string> stages(1);
    for (char c : flat) {
        if (c == '|') stages.emplace_back();
        else if (c == 'E' || c == 'L' || c == 't' || c == 'm') stages.back() += c;
        else return std::string("'") + c + "' is no layer (E, t, m, L)";
    }
    if (std::int64_t(stages.size()) % pp != 0) return num(std::int64_t(stages.size())) + " stages do not divide over " + num(pp) + " ranks";
    if (flat.find('E') != 0 || flat.rfind('L') != flat.size() - 1 || std::count(flat.begin(), flat.end(), 'E') != 1 ||
        std::count(flat.begin(), flat.end(), 'L') != 1)
        return "the embedding must come first and the loss last, once each";
    if (std::count(flat.begin(), flat.end(), 't') != decoderLayers)
        return "places " + num(std::count(flat.begin(), flat.end(), 't')) + " decoder layers, and the model has " + num(decoderLayers);
    if (std::count(flat.begin(), flat.end(), 'm') != mtpLayers)
        return "places " + num(std::count(flat.begin(), flat.end(), 'm')) + " MTP layers, and the model has " + num(mtpLayers);
    if (const auto m = flat.find('m'); m != std::string::npos && flat.find('t', m) != std::string::npos)
        return "decoder layers must come before the MTP layers";
    const std::int64_t vpp = std::int64_t(stages.size()) / pp;
    StageGrid grid(std::size_t(vpp), std::vector<std::int64_t>(std::size_t(pp), 0));
    for (std::size_t k = 0; k < stages.size(); ++k) {
        const std::int64_t n = std::count(stages[k].begin(), stages[k].end(), 't') + std::count(stages[k].begin(), stages[k].end(), 'm');
        if (n == 0) return "virtual stage " + num(std::int64_t(k)) + " holds no layer, which is not yet representable";
        grid[k / std::size_t(pp)][k % std::size_t(pp)] = n;
    }
    return grid;
}

std::string layoutText(const StageGrid& grid, std::int64_t mtpLayers) {
    std::int64_t total = 0;
    for (const auto& row : grid)
        for (std::int64_t n : row) total += n;
    std::string out;
    std::int64_t placed = 0;
    const std::size_t chunks = grid.size(), pp = grid.front().size();
    for (std::size_t k = 0; k < chunks * pp; ++k) {
        const std::int64_t n = grid[k / pp][k % pp];
        const std::int64_t decoder = std::clamp<std::int64_t>(total - mtpLayers - placed, 0, n), mtp = n - decoder;
        if (k) out += "|";
        if (k == 0) out += "E";
        if (decoder) out += decoder == 1 ? "t" : "t*" + num(decoder);
        if (mtp) out += mtp == 1 ? "m" : "m*" + num(mtp);
        if (k + 1 == chunks * pp) out += "L";
        placed += n;
    }
    return out;
}

}  // namespace tessera::core::trainers
