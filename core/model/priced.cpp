#include "model/priced.h"

#include "units/units.h"

namespace tessera::core {

std::span<const UnpricedField> unpricedFields() {
    static constexpr UnpricedField kFields[] = {
        {"param_casts", "the compute-dtype copies of the weights (the seed's n_attParamCast, n_ffParamCast) are not "
                        "modelled: weights are priced at param_bytes only", "false"},
        {"emb_out_in_offset", "the layer placement counts body and MTP layers only; the embedding and output are "
                              "placed beside them", "false"},
        {"expert_shard_group", "routed experts are sharded over their whole expert data-parallel group, or over "
                               "expert_shard; the launcher's other grouping is not modelled", "true"},
        {"emb_dp_sharded", "the embedding is sharded like every other parameter (optimizer sharding, FSDP); a table "
                           "sharded over data parallelism on its own is not modelled", "false"},
    };
    return kFields;
}

std::vector<NotPriced> notPriced(const ExecSpec& e) {
    std::vector<NotPriced> out;
    auto add = [&](std::string_view key, std::string value) {
        for (const UnpricedField& f : unpricedFields())
            if (f.key == key) out.push_back({"exec." + std::string(key), std::move(value), std::string(f.why)});
    };
    if (e.param_casts == true) add("param_casts", "true");
    if (e.emb_out_in_offset == true) add("emb_out_in_offset", "true");
    if (e.expert_shard_group == false) add("expert_shard_group", "false");
    if (e.emb_dp_sharded == true) add("emb_dp_sharded", "true");
    // A field priced in general that says nothing beside another.
    if (e.capacity_factor && e.grouped_gemm != false)
        out.push_back({"exec.capacity_factor", numberText(*e.capacity_factor),
                       "grouped_gemm is true: dropless experts are padded to no capacity (the seed's gmm), so the factor "
                       "changes nothing; state grouped_gemm: false to price it"});
    return out;
}

std::vector<NotPriced> notPriced(const Scenario& s) {
    std::vector<NotPriced> out = notPriced(s.exec);
    if (s.model.unpriced_keys && !s.model.unpriced_keys->empty()) {
        std::string keys;
        for (const std::string& k : *s.model.unpriced_keys) keys += (keys.empty() ? "" : ", ") + k;
        out.push_back({"model.unpriced_keys", keys,
                       "the imported config.json states these and Tessera prices the model without them"});
    }
    return out;
}

}  // namespace tessera::core
