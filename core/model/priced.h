#pragma once
// What the cost model does not price. Every exec field is read, checked and shown;
// most change a byte or a second (tests/core/tst_priced.cpp holds a row for each that
// shows it). These do not yet: stated with another value than the one Tessera prices,
// they are marked wherever they appear - `tessera show` writes "# not priced: why",
// `estimate` lists them (text and JSON `not_priced`), the GUI greys the row and says
// why in its tooltip - so no field looks live and does nothing.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spec/execspec.h"
#include "spec/scenario.h"

namespace tessera::core {

struct UnpricedField {
    std::string_view key;
    std::string_view why;      // one sentence: what is not modelled, and what is priced instead
    std::string_view pricedAs;  // the value Tessera prices ("false", "unstated")
};
std::span<const UnpricedField> unpricedFields();

struct NotPriced {
    std::string key;    // "exec.seq_split"
    std::string value;  // as stated: "4", "true"
    std::string why;
};
// The fields of `exec` (stated or resolved) that say something the cost model does not
// price: those of unpricedFields(), and a field priced elsewhere that means nothing
// beside another (capacity_factor beside grouped_gemm: true).
std::vector<NotPriced> notPriced(const ExecSpec& exec);
// Those, and the model's: the keys of an imported config.json that Tessera does not
// price (model.unpriced_keys), as one entry.
std::vector<NotPriced> notPriced(const Scenario& s);

}  // namespace tessera::core
