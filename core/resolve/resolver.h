#pragma once
// Shared state of one resolve() run: the scenario being filled, the record of
// what was filled, and the diagnostics. Internal to core/resolve.
#include <algorithm>

#include "doc/document.h"
#include "io/specreader.h"
#include "io/specwriter.h"
#include "resolve/resolve.h"

namespace tessera::core::detail {

class Resolver {
public:
    explicit Resolver(const Scenario& stated) {
        m_out.scenario = stated;
        for (const auto& [path, why] : stated.assumed) m_out.filled[path] = {Origin::Imported, why};
    }

    ModelSpec& model() { return m_out.scenario.model; }
    ExecSpec& exec() { return m_out.scenario.exec; }
    ClusterSpec& cluster() { return m_out.scenario.cluster; }
    const std::optional<CalibrationSpec>& scenarioCalibration() const { return m_out.scenario.calibration; }
    ResolvedScenario& out() { return m_out; }
    Diagnostics& diagnostics() { return m_d; }

    // Refuse: a message at the field `path` (marked where it was stated).
    void refuse(const std::string& path, const std::string& message) {
        m_d.add(m_out.scenario.markOf(path), path, message);
    }
    template <class T>
    void fill(const std::string& path, std::optional<T>& field, T value, Origin origin, std::string why) {
        if (field) return;
        field = std::move(value);
        m_out.filled[path] = {origin, std::move(why)};
    }
    // Fill the unstated fields of `spec` present in `defaults`, except `skip`.
    template <class Spec>
    void fillFrom(Spec& spec, const Value& defaults, const std::string& section, Origin origin, const std::string& why,
                  const std::vector<std::string_view>& skip = {});

    void resolveModel();
    void resolveAttentionSpans(ModelSpec& m);  // sliding_window, attention_chunk_size against layer_types
    void resolveVision(ModelSpec& m);          // the vision_* fields: all or none
    void resolveCluster();
    void resolveExecRun();       // defaults and run-wide rules (byte widths, sequence, optimizer)
    void resolveExecStrategy();  // degrees, batch, pipeline, recompute: what a search varies
    // exec.vision_partition's rules: the stages the tower spans (1: stage 0 alone, as
    // unstated), its blocks per stage in m_out.visionBlocks when more than one.
    std::int64_t visionStages(const ExecSpec& e, const ModelSpec& m, std::int64_t pp, std::int64_t vpp);
    void resolveExpertTp();      // expert_tp and etp, each from the other

private:
    ResolvedScenario m_out;
    Diagnostics m_d;
};

template <class Spec>
void Resolver::fillFrom(Spec& spec, const Value& defaults, const std::string& section, Origin origin,
                        const std::string& why, const std::vector<std::string_view>& skip) {
    Value merged = SpecWriter::write(spec);
    bool changed = false;
    for (const Value::Entry& e : defaults.entries()) {
        if (merged.find(e.key) || std::find(skip.begin(), skip.end(), e.key) != skip.end()) continue;
        merged.set(e.key, e.value, e.keyMark);
        m_out.filled[section + "." + e.key] = {origin, why};
        changed = true;
    }
    if (!changed) return;
    Diagnostics d;  // the shipped defaults are tested to read cleanly
    Spec filledSpec;
    SpecReader(merged, section, d).read(filledSpec);
    m_d.append(d);
    spec = filledSpec;
}

}  // namespace tessera::core::detail
