#!/usr/bin/env bash
# The linux-arm64 artifact: cross-compiles the native library with gcc-aarch64-linux-gnu
# (warnings are errors) into build/native-linux-arm64, the library the packages ship for that
# RID, then runs the ELF artifact checks on it (machine AArch64, exact exports, DT_NEEDED within
# libc) and records the checked file (common.sh). Exits 77 when the cross compiler is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
build="$root/build/native-linux-arm64"
lib="$build/native/interception-profiler/libalvorkit_interception_profiler.so"
forget_checked "$build"
command -v aarch64-linux-gnu-gcc >/dev/null ||
  skip "linux-arm64: aarch64-linux-gnu-gcc is not installed (Debian: gcc-aarch64-linux-gnu)"

cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DALVK_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
if ! cmake --build "$build" -j "${JOBS:-2}" >"$build.log" 2>&1; then
  echo "FAIL the sources do not compile for linux-arm64 with -Werror (see $build.log)"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "ok   the sources compile and link for linux-arm64 with -Werror ($lib)"
ALVK_CROSS=1 NM=aarch64-linux-gnu-nm "$here/check_artifact.sh" "$lib" linux-arm64 || exit 1
record_checked "$build" "$lib"
