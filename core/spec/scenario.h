#pragma once
// A scenario: the model, how it is run, on what, and (optionally) what to search.
// `marks` remembers where each stated field stood in its file ("exec.tp" ->
// scenario.yaml:12:7) so that rules spanning several fields can still point at
// the text; it takes no part in equality, nor does `assumed`.
#include <map>
#include <optional>
#include <string>

#include "spec/calibrationspec.h"
#include "spec/clusterspec.h"
#include "spec/diagnostics.h"
#include "spec/execspec.h"
#include "spec/modelspec.h"
#include "spec/searchspec.h"

namespace tessera::core {

struct Scenario {
    ModelSpec model;
    ExecSpec exec;
    ClusterSpec cluster;
    std::optional<SearchSpec> search;

    std::map<std::string, Mark> marks;
    std::string source;  // file name or "<preset:...>", for messages
    // Fields an import of another format filled with that format's default, and why
    // ("exec.seq_length" -> "the seed's training length ..."); no part of equality.
    std::map<std::string, std::string> assumed;
    // The file cluster.calibration names, as read (its path is in cluster); no part of
    // equality, which the path carries.
    std::optional<CalibrationSpec> calibration;

    // The mark of a field, or of its nearest stated parent section.
    Mark markOf(const std::string& path) const;

    bool operator==(const Scenario& o) const {
        return model == o.model && exec == o.exec && cluster == o.cluster && search == o.search;
    }
};

}  // namespace tessera::core
