#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/fuzz_<name>.c) and runs each over its seed
# corpus (tests/fuzz/corpus/<name>/) plus random inputs; any crash, sanitizer report or
# violated property fails the run, and its input is kept under build/fuzz/artifacts/.
#   tests/fuzz/run.sh replay             each harness over its committed corpus once (libFuzzer's
#                                        -runs=0: every seed executed, no random input): what
#                                        ./build.sh test runs, seconds in all
#   tests/fuzz/run.sh bounded [seconds]  each harness for ~seconds (default 8) from a fresh
#                                        temporary working corpus; the committed corpus is
#                                        only read
#   tests/fuzz/run.sh long [seconds]     each harness for seconds (default 600), its working
#                                        corpus kept in build/fuzz/long/<name>; inputs that
#                                        add coverage beyond the committed corpus are merged
#                                        (-merge=1) into build/fuzz/new-corpus/<name>/ to review
# Environment: FUZZ_CC (default clang-14), FUZZ_JOBS harnesses at a time (default 2 bounded,
# 1 long), FUZZ_ONLY="name name" to run some harnesses only, FUZZ_BUILD_DIR (default
# build/fuzz) for the build, its artifacts and the long run's corpora.
# The script is one compound command, read in full before it runs: editing this file
# during a long run cannot change the run.
{
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
MODE=${1:-bounded}
case "$MODE" in
  replay) SECONDS_EACH=0; JOBS=${FUZZ_JOBS:-2} ;;
  bounded) SECONDS_EACH=${2:-8}; JOBS=${FUZZ_JOBS:-2} ;;
  long) SECONDS_EACH=${2:-600}; JOBS=${FUZZ_JOBS:-1} ;;
  *) echo "usage: tests/fuzz/run.sh replay | bounded [seconds] | long [seconds]" >&2; exit 64 ;;
esac
CC_FUZZ=${FUZZ_CC:-clang-14}
BUILD=$(mkdir -p "${FUZZ_BUILD_DIR:-build/fuzz}" && cd "${FUZZ_BUILD_DIR:-build/fuzz}" && pwd)
BIN="$BUILD/tests/fuzz"
ARTIFACTS="$BUILD/artifacts"

if ! command -v "$CC_FUZZ" >/dev/null; then
  echo "run.sh: $CC_FUZZ not found" \
       "(Debian: apt-get install clang-14 libclang-rt-14-dev libssl-dev)" >&2
  exit 1
fi

echo "==> building the harnesses ($CC_FUZZ, ASan + UBSan + libFuzzer) in ${BUILD#$ROOT/}"
CC="$CC_FUZZ" cmake -S . -B "$BUILD" -DALVK_FUZZ=ON -DALVK_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" --target alvk_fuzzers -j 2 >/dev/null

names=()
for source in tests/fuzz/fuzz_*.c; do
  name=$(basename "$source" .c)
  name=${name#fuzz_}
  if [ -n "${FUZZ_ONLY:-}" ] && [[ " $FUZZ_ONLY " != *" $name "* ]]; then
    continue
  fi
  names+=("$name")
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/alvk-fuzz.XXXXXX")
# On any exit, stop the harnesses still running (by the ids run_one recorded).
cleanup() {
  for pid_file in "$WORK"/*.pid; do
    [ -e "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$ARTIFACTS"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Runs harness $1; its log goes to $WORK/$1.log and its exit status to $WORK/$1.rc.
run_one() {
  local name=$1 corpus="$ROOT/tests/fuzz/corpus/$1" work
  if [ "$MODE" = long ]; then
    work="$BUILD/long/$name"
  else
    work="$WORK/corpus-$name"
  fi
  mkdir -p "$work" "$ARTIFACTS/$name"
  local seeds=()
  [ -d "$corpus" ] && seeds+=("$corpus")
  local rc=0 budget=(-max_total_time="$SECONDS_EACH")
  [ "$MODE" = replay ] && budget=(-runs=0)
  "$BIN/fuzz_$name" "${budget[@]}" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$ARTIFACTS/$name/" "$work" "${seeds[@]}" \
    >"$WORK/$name.log" 2>&1 &
  echo $! >"$WORK/$name.pid"
  wait $! || rc=$?
  rm -f "$WORK/$name.pid"
  [ -d "$WORK" ] || return 0 # the run was stopped
  echo "$rc" >"$WORK/$name.rc"
  if [ "$MODE" = long ] && [ "$rc" = 0 ]; then
    merge_new "$name" "$work" "$corpus"
  fi
}

# Inputs of the working corpus that add coverage beyond the committed corpus, into
# build/fuzz/new-corpus/$1 (the committed corpus itself is left alone).
merge_new() {
  local name=$1 work=$2 corpus=$3 merged="$WORK/merged-$1" new="$BUILD/new-corpus/$1"
  mkdir -p "$merged" "$new"
  [ -d "$corpus" ] && cp "$corpus"/* "$merged"/ 2>/dev/null || true
  if ! "$BIN/fuzz_$name" -merge=1 -timeout=10 -rss_limit_mb=2048 "$merged" "$work" \
       >"$WORK/$name.merge.log" 2>&1; then
    echo "run.sh: merging the inputs of $name failed:" >&2
    tail -20 "$WORK/$name.merge.log" >&2
    return
  fi
  local count=0
  for file in "$merged"/*; do
    [ -e "$file" ] || continue
    if [ ! -e "$corpus/$(basename "$file")" ]; then
      cp "$file" "$new"/
      count=$((count + 1))
    fi
  done
  echo "$count" >"$WORK/$name.new"
}

if [ "$MODE" = replay ]; then
  echo "==> replay: ${#names[@]} harnesses, each over its committed corpus, $JOBS at a time"
else
  echo "==> $MODE run: ${#names[@]} harnesses, ${SECONDS_EACH}s each, $JOBS at a time"
fi
running=0
for name in "${names[@]}"; do
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

failed=0
total_runs=0
printf '\n%-16s %14s %8s  %s\n' harness executions seconds result
for name in "${names[@]}"; do
  log="$WORK/$name.log"
  rc=$(cat "$WORK/$name.rc" 2>/dev/null || echo missing)
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  result=ok
  if [ "$rc" != 0 ] || [ -z "$runs" ]; then
    result="FAILED (exit $rc)"
    failed=$((failed + 1))
  elif [ -f "$WORK/$name.new" ]; then
    result="ok, $(cat "$WORK/$name.new") new inputs in ${BUILD#$ROOT/}/new-corpus/$name"
  fi
  printf '%-16s %14s %8s  %s\n' "$name" "${runs:-?}" "${secs:-?}" "$result"
  total_runs=$((total_runs + ${runs:-0}))
done
printf '%-16s %14s\n' total "$total_runs"

if [ "$failed" -gt 0 ]; then
  for name in "${names[@]}"; do
    rc=$(cat "$WORK/$name.rc" 2>/dev/null || echo missing)
    if [ "$rc" != 0 ] || ! grep -q '^Done ' "$WORK/$name.log"; then
      echo
      echo "==> fuzz_$name failed; the end of its log (reproducers in ${ARTIFACTS#$ROOT/}/$name/):"
      tail -40 "$WORK/$name.log"
    fi
  done
  echo "run.sh: $failed harness(es) failed" >&2
  exit 1
fi
exit 0
}
