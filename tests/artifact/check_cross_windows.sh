#!/usr/bin/env bash
# The win-x64 build check: cross-compiles the whole native library with mingw-w64 (warnings
# are errors), then checks the DLL's machine, its exact export list and its imports (the OS
# and the C runtime only). Runs wherever x86_64-w64-mingw32-gcc exists; CI installs it.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/crosscheck-win-x64" # not build/native-<rid>: this binary is never packed
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  echo "FAIL x86_64-w64-mingw32-gcc is not installed (Debian: gcc-mingw-w64-x86-64)"
  echo "0 passed, 1 failed"
  exit 1
fi
pass=0
fail=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }

cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/mingw-w64-x86_64.cmake" \
  -DALVK_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "${JOBS:-2}" >/dev/null 2>"$build.log"
check "the sources compile and link for win-x64 with -Werror" $?
dll="$build/native/interception-profiler/alvorkit_interception_profiler.dll"

x86_64-w64-mingw32-objdump -f "$dll" 2>/dev/null | grep -q "file format pei-x86-64"
check "alvorkit_interception_profiler.dll is a PE32+ x86-64 image" $?

header="$root/include/alvorkit_interception_profiler.h"
expected=$( (grep -oE 'ALVK_API[^;]*ALVK_CALL[[:space:]]+alvk_[a-z0-9_]+\(' "$header" |
  grep -oE 'alvk_[a-z0-9_]+\($' | tr -d '(' ; echo DllGetClassObject) | sort -u)
actual=$(x86_64-w64-mingw32-objdump -p "$dll" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
  awk '/\[/ && $NF !~ /Table/ {print $NF}' | sort -u)
[ "$expected" = "$actual" ]; r=$?
[ $r -eq 0 ] || diff <(echo "$expected") <(echo "$actual")
check "exports are exactly the header's functions plus DllGetClassObject" $r

imports=$(x86_64-w64-mingw32-objdump -p "$dll" | awk '/DLL Name:/ {print $3}' | sort -u)
r=0
for i in $imports; do
  case "$i" in KERNEL32.dll|msvcrt.dll|api-ms-win-crt-*.dll) ;; *) echo "     unexpected import: $i"; r=1 ;; esac
done
check "imports within the OS and the C runtime ($(echo $imports))" $r

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
