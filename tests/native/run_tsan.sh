#!/usr/bin/env bash
# The native unit tests under ThreadSanitizer: configures build/native-tsan (ALVK_TSAN=ON),
# builds it and runs every test with ctest. With halt_on_error a TSan report ends its test
# with status 66, so ctest, and this script, fail on any report. No suppressions.
#   tests/native/run_tsan.sh                         JOBS=N to change the parallelism
#   ALVK_STRESS_SCALE=50 tests/native/run_tsan.sh    a long concurrency stress
#   tests/native/run_tsan.sh threads                 only the tests that start threads (their
#                                                    ctest label): what ./build.sh test runs
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=build/native-tsan
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

SELECTION=${1:-all}
case "$SELECTION" in
  all | threads) ;;
  *) echo "usage: tests/native/run_tsan.sh [all|threads]" >&2; exit 64 ;;
esac

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DALVK_TSAN=ON >/dev/null
labels=()
if [ "$SELECTION" = threads ]; then
  labels=(-L threads)
  # Only the labelled tests' executables are built.
  mapfile -t targets < <(ctest --test-dir "$BUILD_DIR" -N -L threads | sed -n 's/^ *Test *#[0-9]*: //p')
  [ "${#targets[@]}" -gt 0 ] || { echo "run_tsan.sh: no test is labelled threads" >&2; exit 1; }
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}"
else
  cmake --build "$BUILD_DIR" -j "$JOBS"
fi
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66${TSAN_OPTIONS:+ $TSAN_OPTIONS}" \
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "${labels[@]}"
