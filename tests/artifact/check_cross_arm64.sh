#!/usr/bin/env bash
# The linux-arm64 build check: cross-compiles the native library with gcc-aarch64-linux-gnu
# (warnings are errors), then runs the ELF artifact checks on it (machine AArch64, exact
# exports, DT_NEEDED within libc). CI installs the cross compiler.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/crosscheck-linux-arm64" # not build/native-<rid>: this binary is never packed
if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
  echo "FAIL aarch64-linux-gnu-gcc is not installed (Debian: gcc-aarch64-linux-gnu)"
  echo "0 passed, 1 failed"
  exit 1
fi
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DALVK_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
if ! cmake --build "$build" -j "${JOBS:-2}" >"$build.log" 2>&1; then
  echo "FAIL the sources do not compile for linux-arm64 with -Werror (see $build.log)"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "ok   the sources compile and link for linux-arm64 with -Werror"
ALVK_CROSS=1 NM=aarch64-linux-gnu-nm "$root/tests/artifact/check_artifact.sh" \
  "$build/native/interception-profiler/libalvorkit_interception_profiler.so" linux-arm64
