# TESSERA_SANITIZE: build every target of this project with sanitizers (issue 6).
#   ""                   nothing (the normal build)
#   "address,undefined"  ASan + UBSan; any undefined behaviour aborts, so the test fails
#   "thread"             TSan (cannot be combined with ASan: both own the shadow memory)
# Included before the subdirectories, so the options reach core, ui, app and the tests.
# System libraries (Qt, yaml-cpp, libstdc++) stay uninstrumented; tests/sanitize/run.sh
# sets the runtime options and the suppressions that follow from that.

if(TESSERA_SANITIZE STREQUAL "")
  return()
endif()

if(TESSERA_SANITIZE STREQUAL "address,undefined" OR TESSERA_SANITIZE STREQUAL "undefined,address")
  # Frame pointers give ASan's fast unwinder whole stacks; without recovery the first
  # UBSan report ends the process with an error instead of a warning in the log.
  # float-cast-overflow is outside GCC's "undefined" group (clang's fuzz build has it):
  # a double past int64 cast to a count is exactly the hostile-input bug the fuzzers
  # found (tests/data/fuzz/guardrails/visual-seq-len-2e60.yaml), so the suite checks it too.
  set(_tessera_sanitize_flags -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all)
elseif(TESSERA_SANITIZE STREQUAL "thread")
  set(_tessera_sanitize_flags -fsanitize=thread)
else()
  message(FATAL_ERROR "TESSERA_SANITIZE is \"${TESSERA_SANITIZE}\"; expected \"address,undefined\", \"thread\" "
                      "or empty (ASan and TSan cannot be combined)")
endif()

message(STATUS "Sanitizers: ${_tessera_sanitize_flags}")
add_compile_options(${_tessera_sanitize_flags})
add_link_options(${_tessera_sanitize_flags})
unset(_tessera_sanitize_flags)
