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

cross_build linux-arm64 "$build" "$root/cmake/toolchains/aarch64-linux-gnu.cmake" "$lib" || exit 1
ALVK_CROSS=1 NM=aarch64-linux-gnu-nm "$here/check_artifact.sh" "$lib" linux-arm64 || exit 1
record_checked "$build" "$lib"
