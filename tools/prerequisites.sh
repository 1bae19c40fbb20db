#!/usr/bin/env bash
# What this machine lacks for a build.sh target, one line each: the Debian package that brings
# it, a tab, what needs it. Prints nothing when nothing is missing; always exits 0.
#   tools/prerequisites.sh demo    the demo and the packages: a C compiler and CMake
#                                  (the .NET SDK is checked by build.sh itself)
#   tools/prerequisites.sh test    everything ./build.sh test needs
#   tools/prerequisites.sh emulators  the emulators and cross tools of the other RIDs' steps
#                                  (qemu-user for linux-arm64, Wine for win-x64, lld for the
#                                  osx-arm64 link): ./build.sh test skips a step without its
#                                  tool, loudly, rather than stopping
# build.sh stops on the first two before building anything; .ci/run installs all three with apt-get.
set -uo pipefail
target=${1:-test}

missing() { printf '%s\t%s\n' "$1" "$2"; }

if [ "$target" = emulators ]; then
  command -v qemu-aarch64-static >/dev/null || missing qemu-user-static "qemu-user, for the linux-arm64 proofs"
  [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null || missing wine64 "Wine, for the win-x64 proofs"
  command -v ld64.lld-14 >/dev/null || missing lld-14 "lld's Mach-O linker, for the osx-arm64 link check"
  command -v llvm-objdump-14 >/dev/null || missing llvm-14 "llvm-objdump and llvm-nm, for the osx-arm64 Mach-O checks"
  exit 0
fi
command -v cmake >/dev/null || missing cmake "CMake, which builds the native library"
command -v cc >/dev/null || missing gcc "a C compiler (cc) for the native library"
[ "$target" = test ] || exit 0

command -v ninja >/dev/null || missing ninja-build "Ninja, which builds the native trees of the tests (build.sh)"
command -v python3 >/dev/null || missing python3 "Python 3, for the include and call checks (tools/check_*.py)"
command -v readelf >/dev/null || missing binutils "readelf, for the artifact checks"
[ -f /usr/include/cmocka.h ] || missing libcmocka-dev "cmocka, the native unit tests' framework"
command -v npm >/dev/null || missing npm "npm, for speedscope's file-format schema (the export proofs)"
/usr/bin/python3 -c 'import clang.cindex' 2>/dev/null ||
  missing python3-clang-14 "python3's libclang bindings, for the binding check (tools/bindgen)"
command -v x86_64-w64-mingw32-gcc >/dev/null || missing gcc-mingw-w64-x86-64 "mingw-w64, for the win-x64 cross-build check"
command -v aarch64-linux-gnu-gcc >/dev/null || missing gcc-aarch64-linux-gnu "the aarch64 cross compiler, for the linux-arm64 build check"
command -v clang-14 >/dev/null || missing clang-14 "clang 14, for the libFuzzer harnesses"
command -v clang-format-14 >/dev/null || command -v clang-format >/dev/null ||
  missing clang-format-14 "clang-format, for the C formatting check (.clang-format)"
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-$(uname -m).a" >/dev/null ||
  missing libclang-rt-14-dev "clang's libFuzzer runtime, for the libFuzzer harnesses"
[ -f /usr/include/openssl/sha.h ] || missing libssl-dev "OpenSSL's headers, the SHA-256 harness's reference"
exit 0
