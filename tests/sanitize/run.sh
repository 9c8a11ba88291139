#!/usr/bin/env bash
# The test suite under the sanitizers (./tessera.sh test --sanitize [CTEST ARGS...]).
#  1. build-asan: everything built with AddressSanitizer + UndefinedBehaviorSanitizer
#     (LeakSanitizer comes with ASan); the whole CTest suite runs on it.
#  2. build-tsan: only the targets whose tests start threads, built with
#     ThreadSanitizer; those tests run on it.
# CTEST ARGS go to both ctest runs (-R/-E narrow the ASan run; the TSan run always runs
# its threaded tests). Exits non-zero if a build or any test fails, and prints what ran
# under which sanitizer and how long each part took.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
JOBS=2  # the machine is shared: at most two compilers or tests at once

# RelWithDebInfo at -O1 instead of its -O2, as the sanitizers' documentation advises:
# less inlining, so a report keeps more of its frames, while the UI tests and the
# benchmarks still run at a usable speed (Debug's -O0 makes them several times slower).
CONFIGURE=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG")

# The tests that start threads: the search (core/search's std::thread workers) and its
# stress test, the GUI's search worker (QtConcurrent + QFutureWatcher + generations)
# and its stress test. The rest of the suite runs on one thread.
TSAN_TESTS=(tst_search tst_searchstress tst_searchui tst_searchuistress)

# Runtime options. halt_on_error: the first report ends the test, which fails with an
# exit code that names the sanitizer (ASan and LSan 23, UBSan 24, TSan 66).
# detect_stack_use_after_return catches a callback that outlives the frame it points
# into. The benchmarks run too: under ASan each takes well under a minute, and their
# hot loops are worth checking; their timings mean nothing here.
# No LeakSanitizer suppressions: the suite leaks nothing, Qt and fontconfig included.
export ASAN_OPTIONS="halt_on_error=1:exitcode=23:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=24:print_stacktrace=1"
# TSan: Debian's Qt is not instrumented. ignore_noninstrumented_modules: the allocator
# and pthread calls Qt makes inside itself are not checked (they are Qt's business);
# tsan.supp lists the hand-offs of our objects that Qt orders where TSan cannot see.
# history_size=7 keeps enough of each thread's past that a report's earlier access
# has its stack; without one a report can be neither read nor matched.
TSAN_ENV="halt_on_error=1:exitcode=66:history_size=7:ignore_noninstrumented_modules=1:second_deadlock_stack=1"
TSAN_ENV+=":suppressions=$PWD/tests/sanitize/tsan.supp:print_suppressions=0"

declare -A TOOK
timed() {  # timed NAME COMMAND...: run it, remember its wall time, return its status
    local name=$1 start=$SECONDS rc=0
    shift
    "$@" || rc=$?
    TOOK[$name]=$((SECONDS - start))
    return $rc
}

build() {  # build DIR SANITIZE [TARGETS...]: configure, build quietly (the log's end on failure)
    local dir=$1 sanitize=$2
    shift 2
    local log="$dir/sanitize-build.log" targets=() t
    for t in "$@"; do targets+=(--target "$t"); done
    mkdir -p "$dir"
    if ! { cmake -S . -B "$dir" "${CONFIGURE[@]}" -DTESSERA_SANITIZE="$sanitize" &&
           cmake --build "$dir" -j "$JOBS" "${targets[@]}"; } >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        echo "sanitize: the $sanitize build failed (whole log: $log)" >&2
        exit 1
    fi
}

status=0
echo "== ASan + UBSan: building build-asan"
timed asan-build build build-asan address,undefined
echo "== ASan + UBSan: the whole suite"
timed asan-test ctest --test-dir build-asan --output-on-failure -j "$JOBS" "$@" || status=1

echo "== TSan: building build-tsan (${TSAN_TESTS[*]})"
timed tsan-build build build-tsan thread "${TSAN_TESTS[@]}"
echo "== TSan: the threaded tests"
# The caller's arguments first, so that this -R is the one ctest uses.
timed tsan-test env TSAN_OPTIONS="$TSAN_ENV" ctest --test-dir build-tsan --output-on-failure -j "$JOBS" "$@" \
    -R "^($(IFS='|'; echo "${TSAN_TESTS[*]}"))\$" || status=1

asan_count=$(ctest --test-dir build-asan -N "$@" | sed -n 's/^Total Tests: //p')
printf '\nsanitize: %s\n' "$([ $status -eq 0 ] && echo passed || echo FAILED)"
printf '  ASan+UBSan  build %5ss  tests %5ss  %s tests: the CTest suite\n' "${TOOK[asan-build]}" "${TOOK[asan-test]}" "$asan_count"
printf '  TSan        build %5ss  tests %5ss  %s\n' "${TOOK[tsan-build]}" "${TOOK[tsan-test]}" "${TSAN_TESTS[*]}"
printf '  total %ss\n' "$SECONDS"
exit $status
