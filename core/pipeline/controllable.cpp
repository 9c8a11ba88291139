// V-Half and V-Min: the V-shaped schedules of controllable memory (Qi et al. 2024,
// "Pipeline Parallelism with Controllable Memory", arXiv 2405.15362), in the order the
// authors' scheduler issues them (sail-sg/zero-bubble-pipeline-parallelism,
// megatron/core/pipeline_parallel/zerobubble/scheduler/zbv_greedy.py).
//
// The schedule is built in unit slots, six per micro-batch on each stage (F and B of
// each of the V's two chunks, and their two weight gradients):
//  1. a repeating building block places each micro-batch's four F/B ops per stage at
//     fixed offsets (the paper's Figure 4/5 patterns); the offsets set how long a
//     chunk's activations live, hence the memory: about 1/2 (V-Half) and 1/3 (V-Min)
//     of 1F1B's;
//  2. the weight gradients fill the empty slots, oldest backward first;
//  3. the warm-up and the drain are squeezed: each op there moves to the earliest free
//     slot its inputs allow, as long as no stage then holds more than the block's peak
//     (the steady state between the first full backward on stage 0 and the last forward
//     stays as the block placed it);
//  4. the squeeze runs again without the weight gradients, they are placed again, split
//     by chunk, and each stage runs its ops in slot order.
// Only the order leaves this file: the simulation times it on the stages' real F, B, W.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "pipeline/orders.h"

namespace tessera::core::pipeline_detail {

namespace {

// Slot-level op types, in the reference's order: F and B of chunk 0 and chunk 1 (B1,
// chunk 1's input gradient, comes first on the way back), then the weight gradients.
enum Type { kF0, kF1, kB1, kB0, kW1, kW0 };
using Lists = std::vector<std::vector<int>>;  // [type][micro-batch] = slot
using Stages = std::vector<Lists>;            // [stage]

struct Item {
    int slot, stage, type, mb;
    bool operator<(const Item& o) const { return std::tie(slot, stage, type, mb) < std::tie(o.slot, o.stage, o.type, o.mb); }
};

int lastSlot(const Lists& l);

// Every op by (slot, stage, type, micro-batch), the order the reference walks them in. A
// stage has one op a slot, so a pass over the slots, stage by stage, is that order.
std::vector<Item> inSlotOrder(const Stages& st) {
    int slots = 0;
    for (const Lists& l : st) slots = std::max(slots, lastSlot(l) + 1);
    const std::size_t p = st.size();
    std::vector<std::pair<int, int>> at(p * std::size_t(slots), {-1, -1});  // [slot][stage] = (type, mb)
    std::size_t count = 0;
    for (std::size_t s = 0; s < p; ++s)
        for (int t = 0; t < int(st[s].size()); ++t)
            for (int mb = 0; mb < int(st[s][std::size_t(t)].size()); ++mb) {
                auto& cell = at[std::size_t(st[s][std::size_t(t)][std::size_t(mb)]) * p + s];
                if (cell.first >= 0) throw std::logic_error("controllable-memory schedule: two ops in one slot");
                cell = {t, mb}, ++count;
            }
    std::vector<Item> all;
    all.reserve(count);
    for (int slot = 0; slot < slots; ++slot)
        for (std::size_t s = 0; s < p; ++s)
            if (const auto& cell = at[std::size_t(slot) * p + s]; cell.first >= 0) all.push_back({slot, int(s), cell.first, cell.second});
    return all;
}

int lastSlot(const Lists& l) {
    int last = -1;
    for (const auto& list : l)
        if (!list.empty()) last = std::max(last, list.back());
    return last;
}

// Step 1: the building block, repeated every six slots.
Stages blockPattern(bool half, int p, int m) {
    Stages st(std::size_t(p), Lists(4));
    for (int i = 0; i < p; ++i) {
        std::array<int, 4> at{};
        if (half) {
            const int gap = p % 2 == 0 ? 3 : 0;
            at = {2 * i, 3 * p - i - 2, 3 * p + gap + 2 * i - 1, 6 * p + gap - i - 2};
        } else {
            const int gap = p % 3 == 0 ? 2 : 0;
            at = {i, 2 * p - i - 1, 2 * p + gap + i, 4 * p + gap - i - 1};
        }
        for (int t = 0; t < 4; ++t)
            for (int mb = 0; mb < m; ++mb) st[std::size_t(i)][std::size_t(t)].push_back(at[std::size_t(t)] + 6 * mb);
    }
    return st;
}

// Step 2: a weight gradient in every slot the four F/B lists leave empty, once a
// backward has produced one; `split` keeps chunk 1's (first preferred) and chunk 0's
// apart, else one list. What is left goes after the last op.
void placeWeightGrads(Lists& l, bool split) {
    l.resize(4);
    l.resize(split ? 6 : 5);
    const int bound = lastSlot(l);
    std::vector<int> owner(std::size_t(bound + 1), -1);
    for (int t = 0; t < 4; ++t)
        for (int slot : l[std::size_t(t)]) {
            if (owner[std::size_t(slot)] >= 0) throw std::logic_error("controllable-memory schedule: two ops in one slot");
            owner[std::size_t(slot)] = t;
        }
    std::array<int, 2> pending{0, 0};
    int i = 0;
    for (; i <= bound; ++i) {
        const int t = owner[std::size_t(i)];
        if (t == kB1 || t == kB0) ++pending[split && t == kB0 ? 1 : 0];
        if (t >= 0) continue;
        for (int w = 0; w < 2; ++w)
            if (pending[std::size_t(w)] > 0) {
                l[std::size_t(kW1 + w)].push_back(i), --pending[std::size_t(w)];
                break;
            }
    }
    --i;
    for (int w = 0; w < 2; ++w)
        while (pending[std::size_t(w)] > 0) l[std::size_t(kW1 + w)].push_back(++i), --pending[std::size_t(w)];
}

// One stage's activations, in chunk-forwards, after each slot: +1 at each F, -1 at each
// weight gradient (a chunk's activations live until its W); without W lists, a W is
// taken to run in the first empty slot after its backward. The squeeze asks whether a
// move keeps the stage at or under the block's peak, so only the slots the move can
// change are walked again.
class Profile {
public:
    Profile(const Lists& l, bool withW) : m_withW(withW) {
        const int bound = lastSlot(l);
        m_owner.assign(std::size_t(bound + 1), -1);
        for (int t = 0; t < int(l.size()); ++t)
            for (int slot : l[std::size_t(t)]) m_owner[std::size_t(slot)] = t;
        m_held.assign(m_owner.size(), 0);
        m_pending.assign(m_owner.size(), 0);
        refresh(bound);
    }
    int peak() {
        refresh(int(m_owner.size()) - 1);
        return m_owner.empty() ? 0 : *std::max_element(m_held.begin(), m_held.end());
    }
    // Moves the op of type t from slot `from` to the earlier, empty slot `to` if no slot
    // then holds more than `limit`; says whether it did.
    bool tryMove(int t, int from, int to, int limit) {
        if (m_withW) {  // only a forward moved earlier raises anything: by one, over [to, from)
            const bool forward = t == kF0 || t == kF1;
            if (forward && *std::max_element(m_held.begin() + to, m_held.begin() + from) + 1 > limit) return false;
            const int delta = forward ? 1 : t >= kW1 ? -1 : 0;
            for (int i = to; i < from; ++i) m_held[std::size_t(i)] += delta;
            place(t, from, to);
            return true;
        }
        place(t, from, to);
        refresh(to - 1);
        int held = to > 0 ? m_held[std::size_t(to - 1)] : 0, pending = to > 0 ? m_pending[std::size_t(to - 1)] : 0;
        bool fits = true;
        for (int i = to; i < int(m_owner.size()) && fits; ++i) fits = apply(i, held, pending) <= limit;
        if (!fits) place(t, to, from);
        m_valid = std::min(m_valid, to - 1);
        return fits;
    }

private:
    void place(int t, int from, int to) {
        m_owner[std::size_t(from)] = -1;
        m_owner[std::size_t(to)] = t;
    }
    int apply(int i, int& held, int& pending) const {
        const int t = m_owner[std::size_t(i)];
        if (t == kF0 || t == kF1) ++held;
        else if (t == kB1 || t == kB0) ++pending;
        else if (t >= kW1) --held;
        else if (!m_withW && pending > 0) --held, --pending;
        return held;
    }
    void refresh(int upTo) {
        if (upTo <= m_valid) return;
        int held = m_valid >= 0 ? m_held[std::size_t(m_valid)] : 0, pending = m_valid >= 0 ? m_pending[std::size_t(m_valid)] : 0;
        for (int i = m_valid + 1; i <= upTo; ++i) {
            apply(i, held, pending);
            m_held[std::size_t(i)] = held, m_pending[std::size_t(i)] = pending;
        }
        m_valid = upTo;
    }
    bool m_withW;
    std::vector<int> m_owner, m_held, m_pending;
    int m_valid = -1;  // m_held / m_pending hold up to here (with W lists: always, kept by range updates)
};

// Each op as early as its inputs and its stage allow, one slot each: the start slots.
Stages eagerStarts(const Stages& st) {
    const int p = int(st.size());
    Stages end = st;
    for (auto& l : end)
        for (auto& list : l) std::fill(list.begin(), list.end(), -1);
    std::vector<int> stageFree(std::size_t(p), 0);
    auto endOf = [&](int s, int t, int mb) {
        const int e = end[std::size_t(s)][std::size_t(t)][std::size_t(mb)];
        if (e < 0) throw std::logic_error("controllable-memory schedule: an op ran before its input");
        return e;
    };
    for (const Item& it : inSlotOrder(st)) {
        int ready = stageFree[std::size_t(it.stage)];
        if ((it.type == kF0 || it.type == kB1) && it.stage > 0) ready = std::max(ready, endOf(it.stage - 1, it.type, it.mb));
        if ((it.type == kF1 || it.type == kB0) && it.stage + 1 < p) ready = std::max(ready, endOf(it.stage + 1, it.type, it.mb));
        if (it.type > kF0 && it.type < kW1) ready = std::max(ready, endOf(it.stage, it.type - 1, it.mb));
        if (it.mb > 0) ready = std::max(ready, endOf(it.stage, it.type, it.mb - 1));
        end[std::size_t(it.stage)][std::size_t(it.type)][std::size_t(it.mb)] = ready + 1;
        stageFree[std::size_t(it.stage)] = ready + 1;
    }
    for (auto& l : end)
        for (auto& list : l)
            for (int& e : list) --e;
    return end;
}

// Step 3: squeeze the warm-up (with W lists) and the drain, never above the block's peak.
Stages squeeze(Stages st, bool withW) {
    const int p = int(st.size());
    if (withW)
        for (Lists& l : st) placeWeightGrads(l, false);
    std::vector<Profile> memory;
    int limit = 0;
    for (const Lists& l : st) limit = std::max(limit, memory.emplace_back(l, withW).peak());
    std::vector<std::vector<bool>> taken(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) taken[std::size_t(s)].assign(std::size_t(lastSlot(st[std::size_t(s)]) + 1), false);
    const int lastMb = int(st[0][kF0].size()) - 1;
    int phase = 0;  // 0 warm-up, 1 steady state (kept as placed), 2 drain
    for (const Item& it : inSlotOrder(st)) {
        int& slot = st[std::size_t(it.stage)][std::size_t(it.type)][std::size_t(it.mb)];
        if (it.type == kB0 && it.stage == 0 && phase == 0) phase = 1;
        const bool keep = phase == 1 || (phase == 0 && !withW);
        if (phase == 1 && it.type == kF0 && it.mb == lastMb) phase = 2;
        if (keep) {
            taken[std::size_t(it.stage)][std::size_t(slot)] = true;
            continue;
        }
        const Lists& own = st[std::size_t(it.stage)];
        int after = -1;
        if ((it.type == kF0 || it.type == kB1) && it.stage > 0)
            after = std::max(after, st[std::size_t(it.stage - 1)][std::size_t(it.type)][std::size_t(it.mb)]);
        if ((it.type == kF1 || it.type == kB0) && it.stage + 1 < p)
            after = std::max(after, st[std::size_t(it.stage + 1)][std::size_t(it.type)][std::size_t(it.mb)]);
        if (it.type > kF0 && it.type < kW1) after = std::max(after, own[std::size_t(it.type - 1)][std::size_t(it.mb)]);
        if (it.type == kW1) {  // the it.mb-th backward of either chunk
            std::vector<int> backs = own[kB1];
            backs.insert(backs.end(), own[kB0].begin(), own[kB0].end());
            std::nth_element(backs.begin(), backs.begin() + it.mb, backs.end());
            after = std::max(after, backs[std::size_t(it.mb)]);
        }
        if (it.mb > 0) after = std::max(after, own[std::size_t(it.type)][std::size_t(it.mb - 1)]);
        for (int at = after + 1; at < slot; ++at)
            if (!taken[std::size_t(it.stage)][std::size_t(at)] && memory[std::size_t(it.stage)].tryMove(it.type, slot, at, limit)) {
                slot = at;
                break;
            }
        taken[std::size_t(it.stage)][std::size_t(slot)] = true;
    }
    if (!withW)
        for (Lists& l : st) placeWeightGrads(l, false);
    return eagerStarts(st);
}

StageOrders build(bool half, int p, int m) {
    Stages first = squeeze(blockPattern(half, p, m), true);
    for (Lists& l : first) l.resize(4);
    Stages second = squeeze(std::move(first), false);
    std::vector<std::vector<Step>> orders(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
        Lists& l = second[std::size_t(s)];
        l.resize(4);
        placeWeightGrads(l, true);
        std::vector<Item> items;
        for (int t = 0; t < 6; ++t)
            for (int mb = 0; mb < int(l[std::size_t(t)].size()); ++mb) items.push_back({l[std::size_t(t)][std::size_t(mb)], s, t, mb});
        std::sort(items.begin(), items.end());
        for (const Item& it : items) {
            static constexpr int kChunk[] = {0, 1, 1, 0, 1, 0};
            static constexpr Phase kPhase[] = {Phase::Forward,  Phase::Forward,    Phase::Backward,
                                               Phase::Backward, Phase::WeightGrad, Phase::WeightGrad};
            orders[std::size_t(s)].push_back({{it.mb, kChunk[it.type], kPhase[it.type], false}, {}, false});
        }
    }
    return orders;
}

}  // namespace

// The order depends on (schedule, p, m) alone, and a search asks for the same few
// shapes many times: built once each, and kept while they hold at most kKeptSteps steps
// in all (an order is p·6m steps of some 36 bytes: at p 64 and m 1,536, 21 MB), the
// oldest let go first. An order larger than that alone is built and not kept.
namespace {
constexpr std::size_t kKeptSteps = kKeptControllableSteps;
std::mutex lock;
std::size_t steps = 0;  // what `built` holds, under `lock`
std::size_t stepsOf(const StageOrders& orders) {
    std::size_t n = 0;
    for (const auto& o : orders) n += o.size();
    return n;
}
}  // namespace

std::shared_ptr<const StageOrders> controllableMemoryOrders(bool half, int p, int m) {
    using Key = std::tuple<bool, int, int>;
    static std::map<Key, std::shared_ptr<const StageOrders>> built;
    static std::deque<Key> age;  // oldest first
    const Key key = std::make_tuple(half, p, m);
    {
        std::lock_guard<std::mutex> guard(lock);
        if (auto it = built.find(key); it != built.end()) return it->second;
    }
    auto orders = std::make_shared<const StageOrders>(build(half, p, m));  // (outside the lock: another thread may build it too)
    const std::size_t size = stepsOf(*orders);
    if (size > kKeptSteps) return orders;
    std::lock_guard<std::mutex> guard(lock);
    if (auto it = built.find(key); it != built.end()) return it->second;
    while (steps + size > kKeptSteps && !age.empty()) {
        auto old = built.find(age.front());
        steps -= stepsOf(*old->second);
        built.erase(old);
        age.pop_front();
    }
    steps += size;
    age.push_back(key);
    return built.emplace(key, std::move(orders)).first->second;
}

std::size_t controllableStepsKept() {
    std::lock_guard<std::mutex> guard(lock);
    return steps;
}

}  // namespace tessera::core::pipeline_detail
