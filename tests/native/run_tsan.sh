#!/usr/bin/env bash
# The native unit tests under ThreadSanitizer: configures build/native-tsan (ALVK_TSAN=ON),
# builds it and runs every test with ctest. With halt_on_error a TSan report ends its test
# with status 66, so ctest, and this script, fail on any report. No suppressions.
#   tests/native/run_tsan.sh                         JOBS=N to change the parallelism
#   ALVK_STRESS_SCALE=50 tests/native/run_tsan.sh    a long concurrency stress
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=build/native-tsan
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DALVK_TSAN=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66${TSAN_OPTIONS:+ $TSAN_OPTIONS}" \
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
