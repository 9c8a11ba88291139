#include "plan/rounds.h"

#include <algorithm>
#include <functional>

namespace tessera::core::plan {

Rounds::Rounds(std::int64_t pp, std::int64_t vpp, std::int64_t placed) : m_p(pp), m_v(vpp), m_placed(placed) {}

Rounds::Rounds(std::int64_t pp, std::int64_t vpp, std::int64_t placed, std::vector<std::int32_t> residues)
    : m_mode(Mode::Guessed), m_p(pp), m_v(vpp), m_placed(placed), m_residues(std::move(residues)) {
    m_radix.assign(m_residues.size(), 1);
    for (std::size_t r = 1; r < m_residues.size(); ++r) {
        m_radix[r] = m_states;
        m_states *= std::size_t(m_residues[r]) + 1;
    }
    // F from the layers the residues leave; S_c from the rounds before c.
    std::int64_t extra = 0;
    for (std::size_t r = 1; r < m_residues.size(); ++r) extra += std::int64_t(r) * m_residues[r];
    const std::int64_t floors = (placed - extra) / m_v;
    m_start.assign(std::size_t(m_v), 0);
    for (std::int64_t c = 1; c < m_v; ++c) {
        std::int64_t wider = 0;  // stages whose chunk c−1 holds an extra layer: residue ≥ v − (c − 1)
        for (std::int64_t r = m_v - (c - 1); r < m_v; ++r) wider += m_residues[std::size_t(r)];
        m_start[std::size_t(c)] = m_start[std::size_t(c - 1)] + floors + wider;
    }
    m_stages.assign(m_states, 0), m_extra.assign(m_states, 0), m_wider.assign(m_states * std::size_t(m_v), 0);
    for (std::size_t h = 0; h < m_states; ++h)
        for (std::int64_t r = 1; r < m_v; ++r) {
            m_stages[h] += digit(h, r), m_extra[h] += r * digit(h, r);
            for (std::int64_t c = m_v - r; c < m_v; ++c) m_wider[h * std::size_t(m_v) + std::size_t(c)] += digit(h, r);
        }
}

Rounds Rounds::anchored(std::int64_t pp, std::int64_t vpp, std::int64_t placed, std::int64_t front) {
    Rounds r(pp, vpp, placed);
    r.m_mode = Mode::Anchored;
    r.m_front = front;
    // e from 0 to what the stages in the front can leave (each holds one floor at least,
    // so at most `front` of them), then settled.
    r.m_states = std::size_t((vpp - 1) * std::min(pp, front) + 2);
    return r;
}

std::vector<std::vector<std::int32_t>> Rounds::guesses(std::int64_t pp, std::int64_t vpp, std::int64_t placed) {
    std::vector<std::vector<std::int32_t>> out;
    std::vector<std::int32_t> h(std::size_t(vpp), 0);
    // Residue r from vpp − 1 down, each count up to the stages left.
    std::function<void(std::int64_t, std::int64_t, std::int64_t)> walk = [&](std::int64_t r, std::int64_t left, std::int64_t extra) {
        if (r == 0) {
            const std::int64_t rest = placed - extra;
            if (rest >= 0 && rest % vpp == 0 && rest / vpp >= pp) out.push_back(h);
            return;
        }
        for (std::int64_t k = 0; k <= left && extra + r * k <= placed; ++k) {
            h[std::size_t(r)] = std::int32_t(k);
            walk(r - 1, left - k, extra + r * k);
        }
        h[std::size_t(r)] = 0;
    };
    walk(vpp - 1, pp, 0);
    return out;
}

std::int64_t Rounds::leastFloors(std::int64_t pp, std::int64_t vpp, std::int64_t placed) {
    // Every stage's floor is one at least, and its residue v − 1 at most.
    const std::int64_t most = (vpp - 1) * pp;
    return std::max(pp, (placed - most + vpp - 1) / vpp);
}

std::int64_t Rounds::extraOf(std::size_t h) const {
    switch (m_mode) {
    case Mode::Plain: return 0;
    case Mode::Anchored: return std::int64_t(h);
    case Mode::Guessed: return m_extra[h];
    }
    return 0;
}

std::int64_t Rounds::firstTotal(std::int64_t s, std::size_t h, std::int64_t jFirst) const {
    if (plain() || (m_mode == Mode::Anchored && h == settled())) return jFirst;
    const std::int64_t stages = m_mode == Mode::Guessed ? m_stages[h] : (std::int64_t(h) + m_v - 2) / (m_v - 1);
    if (stages > s + 1) return m_placed + 1;
    const std::int64_t j = extraOf(h) + (s + 1) * m_v;  // a whole number of floors, one a stage at least
    const std::int64_t first = j >= jFirst ? j : j + (jFirst - j + m_v - 1) / m_v * m_v;
    return first;
}

std::int64_t Rounds::lastTotal(std::size_t h, std::int64_t jLast) const {
    // Anchored, before settling: round 0 still in the front (f < front).
    if (m_mode == Mode::Anchored && h != settled()) return std::min(jLast, std::int64_t(h) + m_v * m_front - 1);
    return jLast;
}

std::size_t Rounds::after(std::int64_t j, std::size_t h, std::int64_t n) const {
    switch (m_mode) {
    case Mode::Plain: return 0;
    case Mode::Anchored: {
        if (h == settled()) return h;
        const std::int64_t f = (j - std::int64_t(h)) / m_v + n / m_v, e = std::int64_t(h) + n % m_v;
        return f >= m_front ? settled() : e < std::int64_t(settled()) ? std::size_t(e) : npos;
    }
    case Mode::Guessed: {
        const std::int64_t r = n % m_v;
        if (r == 0) return h;
        return digit(h, r) < m_residues[std::size_t(r)] ? h + m_radix[std::size_t(r)] : npos;
    }
    }
    return npos;
}

void Rounds::mixedSeries(std::int64_t j, std::size_t h, std::vector<Series>& out) const {
    out.clear();
    switch (m_mode) {
    case Mode::Plain: out.push_back({0, m_v, 1}); break;
    case Mode::Guessed:
        out.push_back({h, m_v, m_v});
        for (std::int64_t r = 1; r < m_v; ++r)
            if (digit(h, r) > 0) out.push_back({h - m_radix[std::size_t(r)], m_v + r, m_v});
        break;
    case Mode::Anchored:
        if (h != settled()) {  // from e − r, round 0 staying in the front
            for (std::int64_t r = 0; r < m_v && r <= std::int64_t(h); ++r) out.push_back({h - std::size_t(r), m_v + r, m_v});
            break;
        }
        out.push_back({h, m_v, 1});  // settled already
        for (std::size_t e = 0; e < settled(); ++e) {  // settling here: round 0 leaves the front
            if (j < std::int64_t(e) || (j - std::int64_t(e)) / m_v < m_front) continue;
            out.push_back({e, m_v + (j - std::int64_t(e)) % m_v, m_v});
        }
        break;
    }
}

void Rounds::place(detail::StageRanges& out, std::int64_t j, std::size_t h, std::int64_t n) const {
    const bool last = j + n == m_placed;
    const bool anywhere = m_mode == Mode::Anchored && h == settled();
    const std::int64_t f = anywhere ? m_front : (j - extraOf(h)) / m_v;
    for (std::int64_t c = 0; c < m_v; ++c) {
        const std::int64_t count = n / m_v + (c >= m_v - n % m_v ? 1 : 0);
        std::int64_t start = j;
        if (m_mode == Mode::Guessed) start = m_start[std::size_t(c)] + f + m_wider[h * std::size_t(m_v) + std::size_t(c)];
        else if (m_mode == Mode::Anchored) start = last && c == m_v - 1 ? m_placed - count : c == 0 ? f : m_front;
        out.count[std::size_t(c)] = count, out.start[std::size_t(c)] = start;
    }
}

void Rounds::held(std::int64_t j, std::size_t h, std::vector<std::pair<std::int64_t, std::int64_t>>& out) const {
    out.clear();
    switch (m_mode) {
    case Mode::Plain: out.emplace_back(0, j); break;
    case Mode::Anchored: {
        // Round 0's [0, f) and j − f layers of the run's kind: as many of each kind as [0, j).
        if (h == settled()) {
            out.emplace_back(0, j);
            break;
        }
        const std::int64_t f = (j - std::int64_t(h)) / m_v;
        out.emplace_back(0, f), out.emplace_back(m_front, m_front + j - f);
        break;
    }
    case Mode::Guessed: {
        const std::int64_t f = (j - m_extra[h]) / m_v;
        for (std::int64_t c = 0; c < m_v; ++c) {
            const std::int64_t s = m_start[std::size_t(c)];
            out.emplace_back(s, s + f + m_wider[h * std::size_t(m_v) + std::size_t(c)]);
        }
        break;
    }
    }
}

}  // namespace tessera::core::plan
