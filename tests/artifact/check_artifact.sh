#!/usr/bin/env bash
# Checks the shipped library itself: ELF class and machine, the exact export list, the
# DT_NEEDED allowlist, and the ABI version the export reports.
set -euo pipefail
lib=$1
rid=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

case "$rid" in
  linux-x64) want_machine="Advanced Micro Devices X86-64" ;;
  linux-arm64) want_machine="AArch64" ;;
  *) echo "check_artifact.sh: ELF checks apply to linux RIDs, not $rid" >&2; exit 2 ;;
esac

class=$(readelf -h "$lib" | awk -F: '/Class:/ {gsub(/^ +/, "", $2); print $2}')
machine=$(readelf -h "$lib" | awk -F: '/Machine:/ {gsub(/^ +/, "", $2); print $2}')
[ "$class" = "ELF64" ]; check "ELF class is ELF64 (got $class)" $?
[ "$machine" = "$want_machine" ]; check "ELF machine is $want_machine for $rid (got $machine)" $?

expected=$(expected_exports)
actual=$(${NM:-nm} -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRr]$/ {print $3}' | sort -u)
if [ "$expected" = "$actual" ]; then r=0; else r=1; diff <(echo "$expected") <(echo "$actual") || true; fi
check "exports are exactly the header's functions plus DllGetClassObject ($(echo "$expected" | wc -l))" $r

allowed="libc.so.6 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 libpthread.so.0 libdl.so.2"
needed=$(readelf -d "$lib" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}')
r=0
for n in $needed; do
  case " $allowed " in *" $n "*) ;; *) echo "     unexpected DT_NEEDED: $n"; r=1 ;; esac
done
check "DT_NEEDED within libc and its loader ($(echo $needed))" $r

# A cross-built library (ALVK_CROSS=1) cannot be loaded here: its ABI version is not probed.
if [ "${ALVK_CROSS:-0}" != 1 ]; then
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  cc -std=c11 -Wall -Wextra -Werror -I "$root/include" "$here/abi_version_probe.c" -o "$probe/probe" -ldl
  "$probe/probe" "$lib"; check "alvk_version_number() equals ALVK_ABI_VERSION from the header" $?
fi

summary
