#pragma once
// What `tessera estimate` says about the fit (fit/advice.h): why the peak stage does
// not fit and what would, or, when it fits, the nearest faster strategies - as the
// text section after the memory table and as the `fit_suggestions` object of --json.
#include <nlohmann/json.hpp>
#include <string>

#include "fit/advice.h"

namespace tessera::core {

std::string fitText(const FitAdvice& advice);
nlohmann::ordered_json fitJson(const FitAdvice& advice);

}  // namespace tessera::core
