# What the artifact checks share (sourced, not run): the pass/fail tally, the export list the
# library must have (read from the public header: its one source of truth), and the record a
# cross-build check leaves for the package tests.

pass=0
fail=0
# check NAME RESULT: one line, ok or FAIL, counted.
check() {
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

# The summary line; exits 0 when nothing failed.
summary() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# The exit status of a check that cannot run here (a tool or a package missing): build.sh test
# prints a loud "skipped:" line for it instead of failing.
SKIPPED=77
# skip WHAT: says what is missing and exits with SKIPPED.
skip() {
  echo "SKIP $1"
  exit "$SKIPPED"
}

# expected_exports [PREFIX]: every ALVK_API function the header declares, plus DllGetClassObject,
# sorted, each with PREFIX (Mach-O symbol names carry a leading underscore).
expected_exports() {
  local header
  header="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/include/alvorkit_interception_profiler.h"
  (grep -oE 'ALVK_API[^;]*ALVK_CALL[[:space:]]+alvk_[a-z0-9_]+\(' "$header" |
    grep -oE 'alvk_[a-z0-9_]+\($' | tr -d '('
  echo DllGetClassObject) | sed "s/^/${1:-}/" | sort -u
}

# cross_build RID BUILD_DIR TOOLCHAIN LIBRARY [CMAKE_ARG...]: configures and builds the Release
# library for RID with TOOLCHAIN into BUILD_DIR (its log beside it, BUILD_DIR.log) and checks that
# it compiled and linked with -Werror; returns non-zero, after the summary, when LIBRARY is missing.
cross_build() {
  local rid=$1 build=$2 toolchain=$3 lib=$4
  shift 4
  cmake -S "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DALVK_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release "$@" >"$build.log" 2>&1 &&
    cmake --build "$build" -j "${JOBS:-2}" >>"$build.log" 2>&1
  check "the sources compile and link for $rid with -Werror ($lib; log $build.log)" $?
  [ -f "$lib" ] || { summary; return 1; }
}

# The record of a checked cross-built library: build/native-<rid>/checked.sha256 (sha256sum's
# format, the path relative to that folder). Removed before a check starts, written only when
# every check passed; tests/Launcher's package tests compare the packed file with it.
checked_record() { echo "$1/checked.sha256"; }
forget_checked() { rm -f "$(checked_record "$1")"; }
record_checked() { # BUILD_DIR LIBRARY
  (cd "$1" && sha256sum "${2#"$1"/}") >"$(checked_record "$1")"
  echo "recorded $(cat "$(checked_record "$1")") in $(checked_record "$1")"
}
