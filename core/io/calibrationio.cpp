#include "io/calibrationio.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "doc/document.h"
#include "doc/emit.h"
#include "io/scenarioio.h"
#include "io/specreader.h"
#include "io/specwriter.h"

namespace tessera::core {

CalibrationSpec readCalibrationFile(const std::string& path, Diagnostics& d) {
    const Value doc = loadDocument(path);
    CalibrationSpec spec;
    if (!doc.isMap()) {
        d.add(doc.mark(), "calibration", "a calibration file is a mapping of fitted efficiencies, got " + doc.describe());
        return spec;
    }
    SpecReader(doc, "calibration", d).read(spec);
    return spec;
}

std::string calibrationYaml(const CalibrationSpec& calibration) {
    return "# Tessera calibration (tessera calibrate): efficiencies fitted on measured runs. A scenario uses it\n"
           "# with cluster: {calibration: FILE}; a figure left out keeps the built-in default.\n" +
           toYaml(SpecWriter::write(calibration));
}

std::string calibrationStatus(const std::optional<CalibrationSpec>& c) {
    if (!c) return "uncalibrated";
    std::string out = "calibrated";
    if (c->runs) out += " on " + std::to_string(*c->runs) + (*c->runs == 1 ? " run" : " runs");
    if (c->leave_one_out_percent) {
        char figure[32];
        std::snprintf(figure, sizeof figure, "%.1f", *c->leave_one_out_percent);
        out += std::string(" (leave-one-out ") + figure + " %)";
    }
    return out;
}

RunsFile readRunsFile(const std::string& path) {
    namespace fs = std::filesystem;
    const Value doc = loadDocument(path);
    const std::string base = fs::path(path).parent_path().string();
    Diagnostics d;
    RunsFile out{path, {}};
    auto known = [&](const Value& map, std::initializer_list<std::string_view> keys, const std::string& where) {
        for (const Value::Entry& e : map.entries())
            if (std::find(keys.begin(), keys.end(), e.key) == keys.end()) {
                std::string list;
                for (std::string_view k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
                d.add(e.keyMark, where + (where.empty() ? "" : ".") + e.key, "unknown key; the keys here are: " + list);
            }
    };
    const Value* runs = doc.isMap() ? doc.find("runs") : nullptr;
    if (!doc.isMap() || !runs) {
        d.add(doc.mark(), "runs", "a runs file is a mapping whose runs: lists {scenario: FILE, measured: {step_time_s: X} "
                                  "or {tokens_per_second: N}}; got " + doc.describe());
        d.raiseIfAny();
    }
    known(doc, {"runs"}, "");
    if (!runs->isList()) {
        d.add(runs->mark(), "runs", "expected a list of runs, got " + runs->describe());
        d.raiseIfAny();
    }
    for (std::size_t i = 0; i < runs->items().size(); ++i) {
        const Value& run = runs->items()[i];
        const std::string at = "runs[" + std::to_string(i) + "]";
        if (!run.isMap()) {
            d.add(run.mark(), at, "expected {scenario: FILE, measured: {...}}, got " + run.describe());
            continue;
        }
        known(run, {"scenario", "measured"}, at);
        const Value* file = run.find("scenario");
        const Value* measured = run.find("measured");
        if (!file || file->kind() != Value::Kind::String) {
            d.add(file ? file->mark() : run.mark(), at + ".scenario", "required: the scenario file the run executed, as a path");
            continue;
        }
        MeasuredRun m;
        m.label = file->asString();
        if (!measured || !measured->isMap()) {
            d.add(measured ? measured->mark() : run.mark(), at + ".measured",
                  "required: {step_time_s: X} or {tokens_per_second: N}, what the run measured");
            continue;
        }
        known(*measured, {"step_time_s", "tokens_per_second"}, at + ".measured");
        for (auto [key, slot] : {std::pair{"step_time_s", &m.stepSeconds}, {"tokens_per_second", &m.tokensPerSecond}}) {
            const Value* v = measured->find(key);
            if (!v) continue;
            if (v->kind() != Value::Kind::Int && v->kind() != Value::Kind::Float) {
                d.add(v->mark(), at + ".measured." + key, "expected a positive number, got " + v->describe());
                continue;
            }
            const double x = v->asDouble();
            if (!(x > 0) || !std::isfinite(x)) {
                d.add(v->mark(), at + ".measured." + key, "expected a positive number, got " + v->describe());
                continue;
            }
            *slot = x;
        }
        if ((measured->find("step_time_s") != nullptr) == (measured->find("tokens_per_second") != nullptr)) {
            d.add(measured->mark(), at + ".measured", "state one of step_time_s and tokens_per_second");
            continue;
        }
        if (!m.stepSeconds && !m.tokensPerSecond) continue;  // (its figure was refused above)
        fs::path p(m.label);
        if (p.is_relative() && !base.empty()) p = fs::path(base) / p;
        try {
            m.scenario = loadScenario(p.string());
        } catch (const SpecError& e) {  // the scenario's own positions: carried as they are
            d.add(file->mark(), at + ".scenario", e.what());
            continue;
        }
        out.runs.push_back(std::move(m));
    }
    d.raiseIfAny();
    return out;
}

}  // namespace tessera::core
