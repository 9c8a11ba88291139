#pragma once
// One edit of the strategy, made whole. The degrees, the batch and the schedule are
// tied by resolve()'s rules (dp·tp·pp·cp = devices, global = micro-batch size ·
// micro-batches · dp, vpp by the schedule, a stated placement by pp): an edit of one
// alone is usually refused. rederiveCoupled() re-derives every field the edit binds,
// except those held, so "tp 8 -> 4" is one valid edit: dp doubles, the micro-batches
// halve and the global batch stays. The fit advice (advice.h) builds its moves
// through it, and the GUI calls rederive() when the user edits one degree.
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "doc/document.h"
#include "spec/scenario.h"

namespace tessera::core {

// One key of the exec section an edit changes.
struct Change {
    std::string key;           // "exec.tp"
    Value before, after;       // as the exec section states it; an unstated degree or batch size as it derives; null: unstated
    bool derived = false;      // re-derived from the edit, not the edit itself
    bool implicit = false;     // unstated before and after: resolve() derives it, there is nothing to write
    std::string text() const;  // "tp 8 → 4", "dp 16 → 32 (derived)"
};

// The degrees and the batch as resolve() derives them, without resolving: a stated
// value, else the run default (1) or the derivation (dp from the devices, the third
// batch size from the other two); 0 where it does not derive (a product that does not
// divide).
struct Layout {
    std::int64_t dp = 0, tp = 1, pp = 1, cp = 1, vpp = 1, ep = 1;
    std::int64_t mbs = 0, mbn = 0, gbs = 0;
};
Layout layoutOf(const ExecSpec& e, std::int64_t devices);

// The product of stated counts, 0 past 2^63-1 (a field takes any whole number).
std::int64_t checkedProduct(std::initializer_list<std::int64_t> factors);

// The devices the cluster states (devices, or nodes · devices_per_node); 0 when neither.
std::int64_t statedDevices(const ClusterSpec& cluster);

// `next` is `before` with some keys edited: re-derive every field those edits bind,
// leaving the keys in `held` (exec keys, "tp" or "exec.tp": the edited ones and the
// pinned ones) as they are. The global batch is kept unless it is held.
void rederiveCoupled(const ExecSpec& before, ExecSpec& next, std::int64_t devices, const std::set<std::string>& held);

// The exec keys `after` states otherwise than `before` (or only one of them states), in
// the field table's order.
std::vector<std::string> statedChanges(const ExecSpec& before, const ExecSpec& after);

// The keys `after` states otherwise than `before`, and the degrees and batch sizes that
// derive otherwise; `edited` (exec keys) are the edit, every other change is derived.
std::vector<Change> changesBetween(const ExecSpec& before, const ExecSpec& after, std::int64_t devices,
                                   const std::set<std::string>& edited);

// The GUI's edit of one exec key (`key`: "tp" or "exec.tp") to `newValue`, with the
// fields it binds re-derived unless pinned: the edit first, then what follows. Throws
// SpecError when the value does not read as the key's type and range.
std::vector<Change> rederive(const Scenario& stated, const std::string& key, const Value& newValue,
                             const std::set<std::string>& pinned = {});

// Writes each change's `after` into the document's exec section (null removes the key),
// as the forms write a field (io/overrides.h setAt).
void applyChanges(Value& document, const std::vector<Change>& changes);

// "exec.tp" -> "tp"; a key without the prefix is returned as it is.
std::string execKey(const std::string& key);

}  // namespace tessera::core
