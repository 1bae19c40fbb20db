#!/usr/bin/env bash
# The win-x64 artifact: cross-compiles the whole native library with mingw-w64 (warnings are
# errors) into build/native-win-x64, the library the packages ship for that RID, then checks
# the DLL's machine, its exact export list and its imports (the OS and the C runtime only) and
# records the checked file (common.sh). Exits 77 when the cross compiler is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"
build="$root/build/native-win-x64"
dll="$build/native/interception-profiler/alvorkit_interception_profiler.dll"
forget_checked "$build"
command -v x86_64-w64-mingw32-gcc >/dev/null ||
  skip "win-x64: x86_64-w64-mingw32-gcc is not installed (Debian: gcc-mingw-w64-x86-64)"

cross_build win-x64 "$build" "$root/cmake/toolchains/mingw-w64-x86_64.cmake" "$dll" || exit 1

x86_64-w64-mingw32-objdump -f "$dll" 2>/dev/null | grep -q "file format pei-x86-64"
check "alvorkit_interception_profiler.dll is a PE32+ x86-64 image" $?

expected=$(expected_exports)
actual=$(x86_64-w64-mingw32-objdump -p "$dll" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
  awk '/\[/ && $NF !~ /Table/ {print $NF}' | sort -u)
[ "$expected" = "$actual" ]; r=$?
[ $r -eq 0 ] || diff <(echo "$expected") <(echo "$actual")
check "exports are exactly the header's functions plus DllGetClassObject ($(echo "$expected" | wc -l))" $r

imports=$(x86_64-w64-mingw32-objdump -p "$dll" | awk '/DLL Name:/ {print $3}' | sort -u)
r=0
for i in $imports; do
  case "$i" in KERNEL32.dll|msvcrt.dll|api-ms-win-crt-*.dll) ;; *) echo "     unexpected import: $i"; r=1 ;; esac
done
check "imports within the OS and the C runtime ($(echo $imports))" $r

summary || exit 1
record_checked "$build" "$dll"
