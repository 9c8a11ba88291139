#!/usr/bin/env bash
# The test suite under the sanitizers (./tessera.sh test --sanitize [CTEST ARGS...]).
#  1. build-asan: everything built with AddressSanitizer + UndefinedBehaviorSanitizer
#     (LeakSanitizer comes with ASan); the whole CTest suite runs on it.
#  2. build-tsan: only the targets whose tests start threads, built with
#     ThreadSanitizer; those tests run on it.
# CTEST ARGS go to the ASan run (-R/-E narrow it); the TSan run always runs its
# threaded tests. Exits non-zero if a build or any test fails, and prints what ran
# under which sanitizer and how long each part took.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."

# The builds and the sanitizers' runtime options are CMakePresets.json's asan and tsan
# presets (one place for them; `cmake --preset asan` and `ctest --preset asan` work by
# hand too): RelWithDebInfo at -O1, halt_on_error with an exit code that names the
# sanitizer (ASan and LSan 23, UBSan 24, TSan 66), and for TSan, whose Debian Qt is not
# instrumented, ignore_noninstrumented_modules and tsan.supp (the hand-offs of our
# objects that Qt orders where TSan cannot see). The tsan presets list the tests that
# start threads: the search's std::thread workers and its stress test, the GUI's search
# worker, its stress test and the Session that drives it. No LeakSanitizer
# suppressions: the suite leaks nothing, Qt and fontconfig included. The benchmarks run
# too, since their hot loops are worth checking (their timings mean nothing here), all
# but bench_search: its whole-space walks took a quarter of this stage under ASan in CI
# (257 s), and tst_search and tst_searchagrees walk the same candidates, schedules and
# refusals here already (the asan test preset's filter).

declare -A TOOK
timed() {  # timed NAME COMMAND...: run it, remember its wall time, return its status
    local name=$1 start=$SECONDS rc=0
    shift
    "$@" || rc=$?
    TOOK[$name]=$((SECONDS - start))
    return $rc
}

build() {  # build PRESET: configure and build quietly (the log's end on failure)
    local preset=$1 dir=build-$1
    local log="$dir/sanitize-build.log"
    mkdir -p "$dir"
    if ! { cmake --preset "$preset" && cmake --build --preset "$preset"; } >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        echo "sanitize: the $preset build failed (whole log: $log)" >&2
        exit 1
    fi
}

status=0
echo "== ASan + UBSan: building build-asan"
timed asan-build build asan
echo "== ASan + UBSan: the whole suite"
timed asan-test ctest --preset asan "$@" || status=1

echo "== TSan: building build-tsan (the threaded tests)"
timed tsan-build build tsan
echo "== TSan: the threaded tests"
timed tsan-test ctest --preset tsan || status=1

asan_count=$(ctest --preset asan -N "$@" | sed -n 's/^Total Tests: //p')
tsan_tests=$(ctest --preset tsan -N | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')
printf '\nsanitize: %s\n' "$([ $status -eq 0 ] && echo passed || echo FAILED)"
printf '  ASan+UBSan  build %5ss  tests %5ss  %s tests: the CTest suite but bench_search\n' "${TOOK[asan-build]}" "${TOOK[asan-test]}" "$asan_count"
printf '  TSan        build %5ss  tests %5ss  %s\n' "${TOOK[tsan-build]}" "${TOOK[tsan-test]}" "$tsan_tests"
printf '  total %ss\n' "$SECONDS"
exit $status
