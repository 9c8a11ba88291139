// libFuzzer's entry point for one target; CMake compiles this file once per
// target with TESSERA_FUZZ_ENTRY naming the function of entries.h it calls.
#include "entries.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    TESSERA_FUZZ_ENTRY(data, size);
    return 0;  // libFuzzer reserves other values; accepted and refused are both fine
}
