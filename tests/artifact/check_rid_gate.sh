#!/usr/bin/env bash
# CMake's RID gate: the four supported RIDs only. Configures throwaway trees and checks that
# an unsupported RID, and a RID that does not match the toolchain, are refused by name.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pass=0
fail=0
expect_refusal() { # rid, text the error must contain
  if out=$(cmake -S "$root" -B "$scratch/$1" -DALVK_RID="$1" -DALVK_BUILD_TESTS=OFF 2>&1); then
    echo "FAIL ALVK_RID=$1 was accepted"; fail=$((fail + 1))
  elif grep -q "$2" <<<"$out"; then
    echo "ok   ALVK_RID=$1 refused: $2"; pass=$((pass + 1))
  else
    echo "FAIL ALVK_RID=$1 refused without saying '$2'"; fail=$((fail + 1))
  fi
}
expect_refusal linux-x86 "is not supported"
expect_refusal freebsd-x64 "is not supported"
expect_refusal linux-musl-x64 "is not supported"
case "$(uname -m)" in x86_64) other=linux-arm64 ;; *) other=linux-x64 ;; esac
expect_refusal "$other" "does not match the toolchain"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
