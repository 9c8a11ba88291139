#pragma once
// What the trainers' readers and writers share (internal to core/trainers).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "doc/document.h"
#include "trainers/trainers.h"

namespace tessera::core::trainers {

// The scenario a reader builds: each value keeps the mark of what stated it.
class Builder {
public:
    explicit Builder(Diagnostics& d) : m_d(d) {}
    // "exec.tp", "model.hidden_size", "cluster.devices".
    void set(std::string_view path, Value value);
    // Set from the trainer's default rather than the file: recorded in `assumed`.
    void assume(std::string_view path, Value value, std::string why);
    bool has(std::string_view path) const;
    const Value* get(std::string_view path) const;
    void unpriced(const Mark& mark, std::string key, std::string why);
    void refuse(const Mark& mark, const std::string& key, const std::string& message) { m_d.add(mark, key, message); }
    Diagnostics& diagnostics() { return m_d; }
    // model, exec and cluster, each in its field table's order.
    Imported finish(ConfigFormat format, const Mark& root);

private:
    Value& section(std::string_view name);
    Diagnostics& m_d;
    Value m_model = Value::map(), m_exec = Value::map(), m_cluster = Value::map();
    std::vector<Unpriced> m_unpriced;
    std::map<std::string, std::string> m_assumed;
};

// The exec keys a scenario stated (not filled by resolve) that a writer did not
// express, each with why: what an export's header lists.
std::vector<std::string> unexpressedExec(const ResolvedScenario& r, const std::set<std::string>& expressed,
                                         const std::string& trainer);

// "8", "1.5", "true" -> typed value at `mark`, for arguments read as text.
std::optional<std::int64_t> wholeNumber(std::string_view text);
std::optional<double> realNumber(std::string_view text);
std::string num(std::int64_t n);
// The product, or nullopt past 2^63-1 (degrees read from a file can be any size).
std::optional<std::int64_t> product(std::initializer_list<std::int64_t> factors);
// The largest whole number a trainer's file may state for a size or degree.
inline constexpr std::int64_t kMaxStated = (std::int64_t{1} << 31) - 1;

// The model the scenario resolves to is this preset's (same fields, resolved alike).
// `mtpDepth` >= 0 compares against the preset with that many MTP layers instead.
bool isPresetModel(const ResolvedScenario& r, const std::string& presetId, std::int64_t mtpDepth = -1);

// The expert tensor-parallel degree a trainer states (Megatron-LM
// --expert-tensor-parallel-size, torchtitan expert_tensor_parallel_degree) as
// exec.expert_tp, which has their meaning; nothing where it equals tp (the default).
// The one place that reads a trainer's expert TP degree.
std::optional<Value> statedExpertTp(std::optional<std::int64_t> stated, const Mark& mark, std::int64_t tp,
                                    const std::string& key, Diagnostics& d);
// The degree to write back: the experts' tensor-parallel degree as Megatron-LM and
// torchtitan mean it.
std::int64_t writtenExpertTp(const ResolvedScenario& r);

}  // namespace tessera::core::trainers
