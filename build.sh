#!/usr/bin/env bash
# AlvorKit Interception Profiler: one entry point for building, testing and the demo.
#   ./build.sh demo      the Release library, the launcher and the demo, then run the demo
#                        (needs only the .NET SDK, a C compiler and CMake)
#   ./build.sh packages  the Release library, then the NuGet packages (same needs)
#   ./build.sh test      build everything, then run every test (native under ASan/UBSan,
#                        artifact checks, profiled-process proofs); checks first that the
#                        machine has what they need (tools/prerequisites.sh)
#   ./build.sh native    the Release library alone (same needs)
#   ./build.sh step NAME...  some steps of the test target alone, each timed (names: the
#                        TEST_PLAN below); NAME... '|' NAME... runs the two lists at the same time
#   ./build.sh managed | bench | tsan | stress | fuzz
#   ./build.sh platform  the linux-arm64 and win-x64 proofs alone (after a ./build.sh test)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
# MSBuild's worker nodes end with their build: none outlives a step (holding its files, or using
# CPU that the step's time would not count).
export MSBUILDDISABLENODEREUSE=1
# The native trees (the Release and sanitized builds, TSan, the fuzzers, the cross builds and
# the RID gate's) are Ninja's when Ninja is installed (`./build.sh test` requires it:
# tools/prerequisites.sh): make's generator runs CMake's dependency scan and progress commands
# per target, which cost the native steps a fifth of their CPU time (the ASan tree, with its 53
# test executables, a third; docs/Benchmarks.md, "Test run time").
# CMake reads CMAKE_GENERATOR for a tree it configures anew only: an existing tree keeps the
# generator it was made with.
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then
  export CMAKE_GENERATOR=Ninja
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) RID=linux-x64 ;;
  Linux-aarch64) RID=linux-arm64 ;;
  Darwin-arm64) RID=osx-arm64 ;;
  *) echo "build.sh: this host is not one of the supported RIDs (see docs/Interception.md)" >&2; exit 1 ;;
esac
case "$RID" in
  osx-*) LIBNAME=libalvorkit_interception_profiler.dylib ;;
  *) LIBNAME=libalvorkit_interception_profiler.so ;;
esac
RELEASE_DIR="$ROOT/build/native-release"
ASAN_DIR="$ROOT/build/native-asan"
HOST_DIR="$ROOT/build/native-host"
export ALVK_NATIVE_LIBRARY="$RELEASE_DIR/native/interception-profiler/$LIBNAME"
export ALVK_PROOF_HOST="$ROOT/tests/Proofs/AlvorKit.Proofs.Host/bin/Release/net10.0/AlvorKit.Proofs.Host.dll"

step() { printf '\n==> %s\n' "$*"; }

# Test classes run at once by the steps whose tests mostly wait for the processes they start
# (profiled processes, the launcher, MSBuild): xunit's default, one per core, left these steps
# using 1.2-1.4 of the 2 cores. Each class still runs its own tests one at a time.
TEST_THREADS=${TEST_THREADS:-4}

# tooling COMMAND...: runs a command of the build's and the tests' own .NET tooling (MSBuild,
# the C# compiler server, the test runners) without dynamic PGO. These processes end before the
# instrumented tiers pay back: compiling the proof host's sources with the analyzers, the
# compiler ran 5,000-6,300 methods instrumented and took 33-35 CPU s, against 22-27 without,
# and the managed build took 138 CPU s against 83 (docs/Benchmarks.md, "Test run time"). The
# programs the tests start keep the runtime's defaults: every child a test starts loses the
# DOTNET_* settings it would inherit (tests/Support/ChildProcess.cs), so the proof hosts, the
# games and the launcher under test never see this one.
tooling() {
  DOTNET_TieredPGO=0 "$@"
}

# xunit NAME PROJECT [ARGS...]: the built test project run, its results also written as a .trx
# under build/test-results/NAME, which a failed run's recap reads (run_steps_exit); run through
# XUNIT_WRAP when it is set (a command put before `dotnet test`, e.g. counted_dotnet).
xunit() {
  local name=$1 project=$2
  shift 2
  tooling ${XUNIT_WRAP:-} dotnet test "$project" -c Release --no-build -nologo --results-directory "$ROOT/build/test-results/$name" \
    --logger "trx;LogFileName=$name.trx" "$@"
}

include_check() {
  step "include graph: no file, unit or folder cycles, no include against the layer rules"
  python3 tests/tools/test_check_includes.py
  python3 tools/check_includes.py
}

proofs_index() {
  step "proofs index: docs/Proofs.md is what the proof classes give (their Feature traits and summaries); the .trx reader; the builds' CPU counter"
  python3 tests/tools/test_proofs_index.py
  python3 tests/tools/test_trx.py
  python3 tests/tools/test_reap.py
  python3 tools/proofs_index.py --check
}

format_check() {
  step "C formatting: the native sources, the fuzz harnesses and the native host as .clang-format lays them out"
  local format
  format=$(command -v clang-format-14 || command -v clang-format)
  find native/interception-profiler/src tests/fuzz tests/NativeHost -name '*.[ch]' -print0 |
    xargs -0 "$format" --dry-run --Werror
}

call_check() {
  step "call graph: no file or folder of the library calls back into one that calls it"
  python3 tests/tools/test_check_calls.py
  python3 tools/check_calls.py "$RELEASE_DIR"
}

# Stops at once, before building anything, when this machine lacks what `target` needs,
# naming the one command that installs it (tools/prerequisites.sh lists what is missing).
require() {
  local target=$1 missing
  if ! command -v dotnet >/dev/null; then
    echo "build.sh: the .NET 10 SDK is missing (dotnet is not on PATH): install it as" >&2
    echo "https://learn.microsoft.com/dotnet/core/install/linux describes, then run ./build.sh $target again." >&2
    exit 1
  fi
  missing=$(tools/prerequisites.sh "$target")
  [ -z "$missing" ] && return 0
  echo "build.sh: ./build.sh $target needs what this machine lacks:" >&2
  printf '%s\n' "$missing" | while IFS=$'\t' read -r package why; do
    printf '  %-24s %s\n' "$package" "$why" >&2
  done
  echo "Install with (Debian 12 or Ubuntu, as root):" >&2
  echo "  apt-get update && apt-get install -y $(printf '%s\n' "$missing" | cut -f1 | paste -sd' ')" >&2
  [ "$target" = test ] && echo "(.ci/run does this, then runs ./build.sh test.)" >&2
  exit 1
}

build_release() {
  step "native library (Release, $RID)"
  cmake -S . -B "$RELEASE_DIR" -DCMAKE_BUILD_TYPE=Release -DALVK_BUILD_TESTS=OFF >/dev/null
  cmake --build "$RELEASE_DIR" -j "$JOBS"
}

build_native() {
  build_release
  step "native unit tests (Debug, AddressSanitizer + UBSan)"
  cmake -S . -B "$ASAN_DIR" -DCMAKE_BUILD_TYPE=Debug -DALVK_SANITIZE=ON >/dev/null
  cmake --build "$ASAN_DIR" -j "$JOBS"
}

# The C program NativeHostProofs runs (tests/NativeHost): it starts .NET through hostfxr, as game
# engines embed it, with nethost from the SDK's apphost pack. Release, without sanitizers: the
# runtime it hosts handles its own signals.
build_native_host() {
  step "native host (tests/NativeHost, build/native-host): a C program that starts .NET through hostfxr"
  cmake -S . -B "$HOST_DIR" -DCMAKE_BUILD_TYPE=Release -DALVK_BUILD_TESTS=OFF -DALVK_NATIVE_HOST=ON >/dev/null
  cmake --build "$HOST_DIR" -j "$JOBS" --target alvk_native_host
}

test_tools() {
  # speedscope's file-format schema, from its npm package, for the export proofs.
  if [ ! -f build/npm/node_modules/speedscope/dist/release/file-format-schema.json ]; then
    step "test tools (npm: speedscope)"
    npm install --no-audit --no-fund --silent --prefix build/npm speedscope@1.25.0
  fi
}

# One build of every test project (tests/AlvorKit.Tests.slnx: one restore, one evaluation of
# the projects they share); every later step runs them with --no-build.
# Each test project on its own, not tests/AlvorKit.Tests.slnx (which .ci/run restores): a
# solution build builds the projects it does not list (the proof host, the mods, the hosted
# game: referenced without their output) in their default configuration, Debug, where the
# proofs do not look for them.
build_managed() {
  step "managed projects (Release)"
  # Every test project and what it references, in one MSBuild run (tests/AlvorKit.Tests.proj says
  # why not the solution).
  tooling counted_dotnet dotnet msbuild tests/AlvorKit.Tests.proj -restore -m -p:Configuration=Release -v:quiet -nologo
}

# counted_dotnet COMMAND...: a .NET build, or tests whose processes build, with their C#
# compiles in one compiler server (one start and one JIT of the compiler and the analyzers for
# the whole command, not one per project: a clean build of the test projects took 208 CPU s
# against 307 with a compiler process per project), the server shut down when the command ends,
# so that no process outlives the step; and every process of the command counted in the step's
# CPU time: tools/reap.py waits for MSBuild's worker nodes and the server, which end after the
# build that started them. The server is the command's own (SharedCompilationId, which MSBuild
# reads from the environment, names its pipe; the builds the tests start inherit it): by
# default every build of one user on the machine shares one server, so that a build running
# beside another (another checkout's, a second lane's) had its compiles made, and counted, in
# the server the other started.
counted_dotnet() {
  local pipe version sdk
  pipe="alvk-$(id -u)-$$-$BASHPID-$RANDOM"
  version=$(dotnet --version)
  sdk=$(dotnet --list-sdks | sed -n "s/^$version \[\(.*\)\]\$/\1/p")/$version
  SharedCompilationId=$pipe UseSharedCompilation=true /usr/bin/python3 "$ROOT/tools/reap.py" bash -c \
    '"$@"; rc=$?; dotnet "$0" -shutdown -pipename:"$SharedCompilationId" >/dev/null 2>&1 || true; exit $rc' \
    "$sdk/Roslyn/bincore/VBCSCompiler.dll" "$@"
}

binding_tests() {
  step "generated binding: strict check against the header, C layout of every struct"
  xunit bindings tests/Bindings/AlvorKit.Bindings.Tests.csproj \
    --logger "console;verbosity=normal"
}

bindings() {
  step "regenerating the binding (Abi.g.cs), the status enum and the public enums mirroring the header"
  /usr/bin/python3 tools/bindgen/generate.py
}

hotreload_tests() {
  # Both call the native library's validators: the Release build, and the ASan tree's
  # stack_check_replay (build_native).
  after_steps build_native
  step "hot reload: the compiler's deltas of edited sources read, carried and translated (xunit, no profiler)"
  xunit hotreload tests/HotReload/AlvorKit.HotReload.Tests.csproj \
    --logger "console;verbosity=normal"
  step "hooks: binding, order, patch classes and woven bodies (xunit, no runtime)"
  xunit hooks tests/Hooks/AlvorKit.Hooks.Tests.csproj \
    --logger "console;verbosity=normal"
}

launcher_tests() {
  step "launcher, packages and the package consumer sample (xunit)"
  # The tests build games, samples and packages: one compiler server for all of them.
  XUNIT_WRAP=counted_dotnet xunit launcher tests/Launcher/AlvorKit.Interception.Launcher.Tests.csproj \
    --logger "console;verbosity=normal" -- xUnit.MaxParallelThreads="$TEST_THREADS"
}

packages() {
  step "NuGet packages (build/packages)"
  packaging/pack.sh
}

native_tests() {
  step "ctest (ASan + UBSan)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$ASAN_DIR" --output-on-failure -j "$JOBS"
}

# The native tests that start threads (ctest label `threads`), the queue/state stress among
# them, under ThreadSanitizer; the single-threaded ones give TSan nothing to see (./build.sh
# tsan runs every test under it).
tsan_tests() {
  step "native unit tests that start threads, the queue/state stress among them, under ThreadSanitizer (build/native-tsan)"
  JOBS="$JOBS" tests/native/run_tsan.sh threads
}

# Every harness over its committed corpus (the inputs found by long runs, kept as regression
# tests); random exploration is ./build.sh fuzz's (tests/fuzz/run.sh long).
fuzz_corpus() {
  step "libFuzzer harnesses (clang, ASan + UBSan): each over its committed corpus"
  tests/fuzz/run.sh replay
}

artifact_checks() {
  step "artifact checks ($LIBNAME)"
  tests/artifact/check_artifact.sh "$ALVK_NATIVE_LIBRARY" "$RID"
  step "RID gate"
  tests/artifact/check_rid_gate.sh
  # The other RIDs' libraries, built into build/native-<rid>/ (what the packages ship), checked,
  # and recorded as checked (build/native-<rid>/checked.sha256) for the package tests.
  cross_artifact linux-arm64 "cross-compile (gcc-aarch64-linux-gnu): ELF machine, exports, DT_NEEDED" tests/artifact/check_cross_arm64.sh
  cross_artifact win-x64 "cross-compile (mingw-w64): PE machine, exports, imports" tests/artifact/check_cross_windows.sh
  cross_artifact osx-arm64 "cross-compile (clang-14 + ld64.lld, Zig's macOS headers): Mach-O arm64, exports, dylibs, minimum macOS" tests/artifact/check_cross_osx.sh
}

# cross_artifact RID WHAT SCRIPT: runs one cross-build check with its time; a check that cannot
# run here (exit 77: a cross tool or the macOS headers missing) is a loud skip, not a failure.
cross_artifact() {
  local rid=$1 what=$2 script=$3 log rc start=$SECONDS
  [ "$rid" = "$RID" ] && return 0
  step "$rid artifact: build/native-$rid, $what"
  log=$(mktemp)
  rc=0
  "$script" | tee "$log" || rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 77 ] && [ "${ALVK_REQUIRE_ALL_RIDS:-0}" = 1 ]; then
    printf '\n!!! FAILED: %s artifact not built (ALVK_REQUIRE_ALL_RIDS=1, as in .ci/run): %s\n' "$rid" "$(sed -n 's/^SKIP //p' "$log")"
    rm -f "$log"
    return 1
  elif [ "$rc" -eq 77 ]; then
    printf '\n!!! skipped: %s artifact (not built or checked here): %s\n' "$rid" "$(sed -n 's/^SKIP //p' "$log")"
  elif [ "$rc" -ne 0 ]; then
    rm -f "$log"
    return "$rc"
  else
    echo "$rid artifact: built and checked in $((SECONDS - start)) s"
  fi
  rm -f "$log"
}

proofs() {
  step "profiled-process proofs"
  xunit proofs tests/Proofs/AlvorKit.Proofs/AlvorKit.Proofs.csproj \
    --logger "console;verbosity=normal" -- xUnit.MaxParallelThreads="$TEST_THREADS"
}

sanitized_proofs() {
  # The profiler itself under AddressSanitizer and UBSan inside real profiled processes: the
  # Debug ASan library (built for the unit tests) loaded by CoreCLR, the ASan runtime
  # preloaded into each proof process. The runtime handles SIGSEGV and SIGFPE itself (null
  # references, division by zero), so ASan must leave those signals alone; leaks are the
  # runtime's to keep at exit. Any report aborts the process, which fails its proof.
  step "profiled-process proofs with the profiler under ASan + UBSan"
  local asan_lib="$ASAN_DIR/native/interception-profiler/$LIBNAME"
  local runtime
  runtime=$(cc -print-file-name=libasan.so)
  local log="$ROOT/build/sanitized-proofs.log" rc=0 passed
  ALVK_NATIVE_LIBRARY="$asan_lib" ALVK_PROOF_PRELOAD="$runtime" \
  ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:halt_on_error=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    xunit sanitized tests/Proofs/AlvorKit.Proofs/AlvorKit.Proofs.csproj \
      --filter "$SANITIZED_PROOFS" --logger "console;verbosity=minimal" -- xUnit.MaxParallelThreads="$TEST_THREADS" |
      tee "$log" || rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || exit "$rc"
  # A filter that selects nothing passes quietly: the selection must have run.
  passed=$(sed -n 's/.*Passed: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ "${passed:-0}" -eq 0 ]; then
    echo "build.sh: no proof ran under ASan (filter $SANITIZED_PROOFS)" >&2
    exit 1
  fi
}
# The proofs that run again with the profiler under ASan: the classes marked
# [Trait("Sanitized", "yes")] in tests/Proofs/AlvorKit.Proofs. Generations, the managed API,
# command identity, concurrency (the native queue and the managed per-target gates), bad input,
# both dispatch paths (the direct call reads the replacement's metadata and emits references),
# the patch table at scale (batches, growth, the bound) and sampled allocation profiling (its
# correctness; SampledCostProofs, timing and resident memory, stay out) and woven hooks
# (HookProofs: the AssemblyRef relocation and batch submits). A new class joins by its trait.
SANITIZED_PROOFS="Sanitized=yes"

# The proofs again in a profiled process of another RID, under its emulator on this machine:
# linux-arm64 under qemu-user, win-x64 under Wine. For each, platform_publish publishes the proof
# host self-contained for the RID (build/proofs-<rid>, invariant globalization: the arm64 sysroot
# has no ICU) and copies beside it the mods the proofs load by path; platform_proofs then runs
# the proofs whose Platform trait is one of PLATFORM_PROOFS_<rid> against the library
# cross-built for the RID by the artifact checks (build/native-<rid>), its path in the RID's own
# variable (CORECLR_PROFILER_PATH_ARM64, _64); both RIDs at the same time.
# A machine without the emulator skips the RID, loudly.
platform_publish() {
  # One publish after the other: both build the libraries the host references.
  platform_each platform_prepare one-by-one
}

platform_proofs() {
  platform_each platform_proof together
}

# platform_each FUNCTION one-by-one|together: FUNCTION RID EMULATOR HOST LIBRARY PLATFORM_VALUES
# for each emulated RID whose proofs run here (platform_check), each in a subshell (so that its
# own failures stop it, set -e). Together, the first one's output comes as it is written, the
# others' is kept in build/step-logs/<function>-<rid>.log and printed after it. Fails when one did.
platform_each() {
  local function=$1 how=$2 wine pids=() rids=() rc=0 i status
  wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
  mkdir -p "$STEP_DIR"
  platform_one "$function" linux-arm64 qemu-user-static qemu-aarch64-static AlvorKit.Proofs.Host \
    libalvorkit_interception_profiler.so "$PLATFORM_PROOFS_ARM64" &
  pids+=($!)
  rids+=(linux-arm64)
  # Wine runs x64 code on an x64 host only.
  if [ "$(uname -m)" = x86_64 ]; then
    if [ "$how" = one-by-one ]; then
      wait "${pids[0]}" || return $?
      platform_one "$function" win-x64 wine64 "$wine" AlvorKit.Proofs.Host.exe alvorkit_interception_profiler.dll \
        "$PLATFORM_PROOFS_WIN" &
      pids=($!)
      rids=(win-x64)
    else
      platform_one "$function" win-x64 wine64 "$wine" AlvorKit.Proofs.Host.exe alvorkit_interception_profiler.dll \
        "$PLATFORM_PROOFS_WIN" >"$STEP_DIR/$function-win-x64.log" 2>&1 </dev/null &
      pids+=($!)
      rids+=(win-x64)
    fi
  fi
  for i in "${!pids[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    [ "$how" = one-by-one ] || [ "$i" -eq 0 ] || cat "$STEP_DIR/$function-${rids[$i]}.log"
    if [ "$status" -ne 0 ]; then
      printf '\n!!! FAILED: %s %s (exit status %s)\n' "$function" "${rids[$i]}" "$status"
      rc=$status
    fi
  done
  return "$rc"
}

# platform_one FUNCTION RID PACKAGE EMULATOR HOST LIBRARY PLATFORM_VALUES: FUNCTION RID EMULATOR
# HOST LIBRARY PLATFORM_VALUES when the RID's proofs run here (platform_check).
platform_one() {
  local function=$1 rid=$2 package=$3
  shift 3
  if platform_check "$rid" "$package" "$1" "$function"; then
    "$function" "$rid" "$@"
  fi
}

# platform_check RID PACKAGE EMULATOR FUNCTION: whether the RID's proofs run here. Not for this
# machine's own RID (its proofs ran natively), nor without the emulator: said out loud by
# platform_proof (platform_prepare skips quietly), and with ALVK_REQUIRE_ALL_RIDS=1 (as in
# .ci/run) a failure.
platform_check() {
  local rid=$1 package=$2 emulator=$3 function=$4
  [ "$rid" != "$RID" ] || return 1
  command -v "$emulator" >/dev/null && return 0
  [ "$function" = platform_proof ] || return 1
  if [ "${ALVK_REQUIRE_ALL_RIDS:-0}" = 1 ]; then
    printf '\n!!! FAILED: %s proofs: %s not installed (ALVK_REQUIRE_ALL_RIDS=1, as in .ci/run)\n' "$rid" "$package"
    exit 1
  fi
  printf '\n==> skipped: %s proofs: %s not installed (%s missing; .ci/run installs it)\n' "$rid" "$package" "$emulator"
  return 1
}

# platform_prepare RID EMULATOR HOST LIBRARY PLATFORM_VALUES: the RID's publish of the proof host
# with the mods beside it, and what its emulator needs (arm64: OpenSSL; Wine: its prefix).
# The publish compiles nothing again: the host is its Release build's (build_managed;
# AlvkProofHostFromBuild, the host's project says how), its references their RID-less builds.
platform_prepare() {
  local rid=$1 emulator=$2 host=$3 out="$ROOT/build/proofs-$rid" start=$SECONDS inputs
  step "$rid proofs, prepared: the proof host published for $rid (build/proofs-$rid)"
  # The publish is kept while its inputs are unchanged (publish_inputs: the sources and
  # projects it compiles, the build settings, the SDK, the RID).
  inputs=$(publish_inputs "$rid")
  if [ -f "$out/$host" ] && [ "$(cat "$out/.inputs.sha256" 2>/dev/null)" = "$inputs" ]; then
    echo "$rid proofs, prepared: the publish is kept (its inputs are unchanged)"
  else
    rm -f "$out/.inputs.sha256"
    # linux-arm64 carries the AlvorKit assemblies as their ReadyToRun images (the host's project
    # says why). win-x64 keeps them IL: Wine runs x64 code natively, so there is little JIT cost
    # to save, and one run of its proofs with the images ended in the runtime's fatal error in a
    # dynamic method's finalizer (DynamicResolver.DestroyScout, tiering off), not reproduced in
    # 8 runs alone and not yet explained (docs/Limits.md).
    tooling counted_dotnet dotnet publish tests/Proofs/AlvorKit.Proofs.Host/AlvorKit.Proofs.Host.csproj -c Release -r "$rid" \
      --self-contained -p:InvariantGlobalization=true -p:AlvkProofHostFromBuild=true \
      -p:AlvkProofReadyToRun="$([ "$rid" = linux-arm64 ] && echo true || echo false)" -o "$out" -v quiet -nologo
    echo "$inputs" >"$out/.inputs.sha256"
    echo "$rid proofs, prepared: published in $((SECONDS - start)) s"
  fi
  cp tests/Proofs/AlvorKit.Proofs.Host/bin/Release/net10.0/AlvorKit.Proofs.{GameMod,HookMod}.dll "$out/"
  case "$rid" in
    linux-arm64) arm64_openssl ;;
    win-x64) wine_prefix "$emulator" ;;
  esac
}

# platform_proof RID EMULATOR HOST LIBRARY PLATFORM_VALUES: the RID's proofs (platform_prepare first).
platform_proof() {
  local rid=$1 emulator=$2 host=$3 library=$4 traits=$5 filter
  filter=$(printf 'Platform=%s|' $traits)
  filter=${filter%|}
  local out="$ROOT/build/proofs-$rid" dir="$ROOT/build/native-$rid"
  local lib="$dir/native/interception-profiler/$library" start log passed rc=0
  step "$rid proofs: the proof host published for $rid, run under $emulator with the $rid library"
  if ! [ -f "$out/$host" ]; then
    echo "build.sh: $out/$host is missing (publish it: ./build.sh step platform_publish)" >&2
    exit 1
  fi
  # Only the library its artifact check passed on (build/native-<rid>/checked.sha256).
  if ! [ -f "$dir/checked.sha256" ] || [ "$(sha256sum <"$lib" | cut -d' ' -f1)" != "$(cut -d' ' -f1 "$dir/checked.sha256")" ]; then
    echo "build.sh: $lib is missing or not the file its artifact check passed (run the artifact checks: ./build.sh test)" >&2
    exit 1
  fi
  start=$SECONDS
  log="$ROOT/build/proofs-$rid.log"
  ALVK_PROOF_RID="$rid" ALVK_PROOF_HOST="$out/$host" ALVK_NATIVE_LIBRARY="$lib" \
    xunit "proofs-$rid" tests/Proofs/AlvorKit.Proofs/AlvorKit.Proofs.csproj \
      --filter "$filter" --logger "console;verbosity=normal" | tee "$log" || rc=${PIPESTATUS[0]}
  # The Wine server the proofs started for the prefix (tests/Support/Emulator), ended now.
  if [ "$rid" = win-x64 ]; then WINEPREFIX="$ROOT/build/wine-prefix" "$(dirname "$emulator")/wineserver" -k 2>/dev/null || true; fi
  passed=$(grep -c '^  Passed AlvorKit' "$log" || true)
  printf '==> %s proofs: %s passed in %s s\n' "$rid" "$passed" "$((SECONDS - start))"
  [ "$rc" -eq 0 ] || exit "$rc"
  # Every class (and every method) carrying the selected traits passed at least one test: a
  # proof that quietly ran nothing under the emulator cannot drop out unseen.
  /usr/bin/python3 tools/check_platform_run.py "$ROOT/build/test-results/proofs-$rid/proofs-$rid.trx" $traits
}

# publish_inputs RID: one hash of what a RID's publish of the proof host is made from: every
# source and project file under tests/Proofs and managed (bin/ and obj/ left out), the
# repository's build settings, the SDK's version and the RID.
publish_inputs() {
  {
    find tests/Proofs managed \( -name bin -o -name obj \) -prune -o -type f -print
    ls build.sh Directory.Build.props Directory.Build.targets Directory.Packages.props global.json
  } | LC_ALL=C sort | xargs sha256sum | { cat; dotnet --version; echo "$1"; } | sha256sum | cut -d' ' -f1
}

# .NET's SHA-256 needs OpenSSL on Linux and the arm64 cross sysroot has none: Debian's arm64
# libssl3, downloaded with apt (its own lists, this machine's architectures untouched) and
# unpacked into build/arm64-openssl once (tests/Support/Emulator puts it on the guest's LD_LIBRARY_PATH).
arm64_openssl() {
  local dir="$ROOT/build/arm64-openssl"
  [ -f "$dir/root/usr/lib/aarch64-linux-gnu/libssl.so.3" ] && return 0
  local start=$SECONDS
  local apt=(-o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
    -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1)
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
  apt-get "${apt[@]}" update -qq
  (cd "$dir" && rm -f libssl3_*.deb && apt-get "${apt[@]}" download libssl3 2>&1 | { grep -v '^W: Download is performed unsandboxed' || true; })
  dpkg-deb -x "$dir"/libssl3_*_arm64.deb "$dir/root"
  echo "arm64 OpenSSL (Debian's libssl3) unpacked into build/arm64-openssl in $((SECONDS - start)) s"
}

# Wine's prefix, build/wine-prefix, made once (wineboot -i), before the proofs start their
# processes in parallel.
wine_prefix() {
  local prefix="$ROOT/build/wine-prefix"
  [ -f "$prefix/system.reg" ] && return 0
  local start=$SECONDS
  if ! WINEPREFIX="$prefix" WINEDEBUG=-all "$1" wineboot -i >"$ROOT/build/wine-prefix.log" 2>&1; then
    echo "build.sh: wineboot -i failed for build/wine-prefix; the end of build/wine-prefix.log:" >&2
    tail -n 20 "$ROOT/build/wine-prefix.log" >&2
    exit 1
  fi
  echo "Wine prefix build/wine-prefix created in $((SECONDS - start)) s"
}

# The platform proofs (each launch is its RID's host under the emulator): the classes and
# methods of tests/Proofs/AlvorKit.Proofs marked [Trait("Platform", "all")]: the process is the
# RID's and CoreCLR loaded the cross-built library from the RID's variable (PlatformProofs),
# install, replace and remove, generations with every relocation kind (GenerationProofs:
# StandAloneSig, TypeSpec, MemberRef, MethodSpec, TypeRef; LiteralAndTypeRelocationProofs:
# UserString, the catch clause's type; AssemblyRefAndBatchProofs: AssemblyRef), the managed API,
# an exact allocation window of each storage, inlining callers re-JITted with the target
# (PatchInliningProofs, and a hooked target's inlining caller), woven hooks (finalizers,
# PatchAll's one batch) and sampled windows (EventPipe; under Wine with W^X off,
# tests/Support/Emulator.ApplyLimits says why). [Trait("Platform", "linux")]: on linux-arm64
# only, ProfilerLoadProofs' mapping check (it reads /proc/self/maps). Left out, with why, in the
# support table (README): the timing and memory proofs. A new proof joins by its trait.
PLATFORM_PROOFS_ARM64="all linux"
PLATFORM_PROOFS_WIN="all"

stress() {
  # The full mixed stress (8 threads x 10,000 commands on 50 targets while 2 threads call
  # them; ALVK_STRESS_THREADS / _COMMANDS / _TARGETS change the scale), and the native
  # queue/RejitState stress scaled up under ThreadSanitizer.
  step "full mixed stress in a profiled process"
  ALVK_STRESS=full dotnet test tests/Proofs/AlvorKit.Proofs/AlvorKit.Proofs.csproj -c Release --no-build \
    -nologo --filter "Category=FullStress" --logger "console;verbosity=detailed"
  step "native concurrency stress under ThreadSanitizer (ALVK_STRESS_SCALE=${ALVK_STRESS_SCALE:-20})"
  cmake -S . -B "$ROOT/build/native-tsan" -DCMAKE_BUILD_TYPE=Debug -DALVK_TSAN=ON >/dev/null
  cmake --build "$ROOT/build/native-tsan" -j "$JOBS" --target test_concurrency_stress
  ALVK_STRESS_SCALE=${ALVK_STRESS_SCALE:-20} TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
    "$ROOT/build/native-tsan/tests/native/test_concurrency_stress"
}

demo() {
  step "live demo: a game loop patched while it runs, started through the launcher"
  dotnet build tools/Launcher/AlvorKit.Interception.Launcher.csproj -c Release -v quiet -nologo
  dotnet build samples/LiveDemo/LiveDemo.csproj -c Release -v quiet -nologo
  dotnet tools/Launcher/bin/Release/net10.0/AlvorKit.Interception.Launcher.dll run \
    --profiler "$ALVK_NATIVE_LIBRARY" --modules LiveDemo -- \
    dotnet samples/LiveDemo/bin/Release/net10.0/LiveDemo.dll
  demo_reload
}

# Edit, save, and the running Release game runs the new code: a copy of the live demo (build/
# demo-reload, two levels down so its project reference still resolves; samples/LiveDemo is never
# edited) runs in --reload mode under the launcher while `alvorkit-intercept watch` compiles an
# update of it on every save. Scoring.cs gets a new method, and the rule the frames print calls
# it: the frames must show the new rule; then the file is put back: they must show the original
# again. Fails when either does not show within 30 s. ALVK_DEMO_WATCH_DELAY=<s> starts the watcher
# that much later, the game running and logging meanwhile (a slow machine's start, rehearsed).
demo_reload() {
  step "live demo, edit-save-run: --reload under the launcher, alvorkit-intercept watch, a method added then the file put back"
  local work=build/demo-reload launcher=tools/Launcher/bin/Release/net10.0/AlvorKit.Interception.Launcher.dll
  local original="1 point per runner in the goal" edited="1 POINT PER RUNNER IN THE GOAL!"
  local delay=${ALVK_DEMO_WATCH_DELAY:-0}
  case "$delay" in
    '' | *[!0-9]*) echo "build.sh: ALVK_DEMO_WATCH_DELAY=$delay: give whole seconds" >&2; return 64 ;;
  esac
  # The game runs (40 frames/s) through the delay, the watcher's start (up to 90 s) and both
  # edits (up to 30 s each), with time to spare; it is stopped once the demo has seen them.
  local frames=$(((delay + 240) * 40))
  rm -rf "$work" && mkdir -p "$work" && mkdir -m 700 "$work/drop"
  cp samples/LiveDemo/*.cs samples/LiveDemo/LiveDemo.csproj "$work/"
  dotnet build "$work/LiveDemo.csproj" -c Release -v quiet -nologo
  DEMO_GAME_PID="" DEMO_WATCH_PID=""
  # The game and the watcher are this step's own background processes: stopped on every way out.
  trap 'demo_reload_stop' EXIT
  demo_reload_stop() {
    # SIGTERM, not SIGINT: a background job of a script starts with SIGINT ignored.
    if [ -n "$DEMO_WATCH_PID" ]; then kill -TERM "$DEMO_WATCH_PID" 2>/dev/null || true; wait "$DEMO_WATCH_PID" 2>/dev/null || true; fi
    if [ -n "$DEMO_GAME_PID" ]; then kill -TERM "$DEMO_GAME_PID" 2>/dev/null || true; wait "$DEMO_GAME_PID" 2>/dev/null || true; fi
    DEMO_WATCH_PID="" DEMO_GAME_PID=""
  }
  dotnet "$launcher" run --profiler "$ALVK_NATIVE_LIBRARY" --modules LiveDemo -- \
    dotnet "$work/bin/Release/net10.0/LiveDemo.dll" --reload "$work/drop" --frames "$frames" --tick-ms 25 \
    </dev/null >"$work/game.log" 2>&1 &
  DEMO_GAME_PID=$!
  if [ "$delay" -gt 0 ]; then
    echo "live demo, edit-save-run: the game runs; the watcher starts in $delay s (ALVK_DEMO_WATCH_DELAY)"
    sleep "$delay"
  fi
  dotnet "$launcher" watch --project "$work/LiveDemo.csproj" --drop "$work/drop" >"$work/watch.log" 2>&1 &
  DEMO_WATCH_PID=$!
  DEMO_WAIT=90 demo_reload_wait "$work/watch.log" "watch: watching " "the watcher to start (MSBuild, then a first compile)"
  demo_reload_wait "$work/game.log" "rule: $original" "the game's first frame"
  sed -n '1,4p' "$work/watch.log"

  cp "$work/Scoring.cs" "$work/Scoring.cs.orig"
  sed -i "s|Rule() => \"$original\";|Rule() => Shout(\"$original\");\n\n    private static string Shout(string text) => text.ToUpperInvariant() + \"!\";|" "$work/Scoring.cs"
  printf -- '--- edited %s:\n' "$work/Scoring.cs"; diff "$work/Scoring.cs.orig" "$work/Scoring.cs" || true
  demo_reload_wait "$work/game.log" "rule: $edited" "a frame with the edited rule"
  local changed_at; changed_at=$(grep -n -m1 -F "rule: $edited" "$work/game.log" | cut -d: -f1)
  cp "$work/Scoring.cs.orig" "$work/Scoring.cs"
  printf -- '--- reverted %s\n' "$work/Scoring.cs"
  demo_reload_wait "$work/game.log" "rule: $original" "a frame with the original rule again" "$changed_at"
  demo_reload_stop
  trap - EXIT
  printf -- '--- the watcher:\n'; sed -n '5,$p' "$work/watch.log"
  printf -- '--- the game (its reloads, and the frames around them):\n'
  grep -n -F -e "reload:" "$work/game.log" || true
  grep -F -m2 "rule: $edited" "$work/game.log"
  demo_reload_lines "$work/game.log" "rule: $original" "$changed_at" 2
  echo "live demo, edit-save-run: the frames changed with the edit and returned after the revert"
}

# demo_reload_wait FILE TEXT WHAT [AFTER_LINE]: waits up to $DEMO_WAIT s (30) for TEXT in FILE
# (after line AFTER_LINE). The file is searched by one process, with no pipe: under pipefail,
# `tail | grep -q` fails once the file outgrows the pipe's buffer (grep stops at its match, and
# tail, still writing, dies of SIGPIPE), and the wait could never succeed.
demo_reload_wait() {
  local file=$1 text=$2 what=$3 after=${4:-0} seconds=${DEMO_WAIT:-30} i
  for i in $(seq 1 $((seconds * 10))); do
    if [ -n "$(demo_reload_lines "$file" "$text" "$after" 1)" ]; then return 0; fi
    sleep 0.1
  done
  echo "live demo, edit-save-run: FAILED: no $what within $seconds s ($file: '$text'). Last lines:" >&2
  tail -n 15 "$file" >&2
  return 1
}

# demo_reload_lines FILE TEXT AFTER_LINE COUNT: the first COUNT lines of FILE after line AFTER_LINE
# that contain TEXT (as it is: no pattern), read to them and no further; nothing when FILE is missing.
demo_reload_lines() {
  [ -f "$1" ] || return 0
  DEMO_TEXT=$2 awk -v after="$3" -v count="$4" \
    'NR > after && index($0, ENVIRON["DEMO_TEXT"]) { print; if (++found == count) exit }' "$1"
}

profiled() { # runs "$@" under the profiler with patching allowed for module $MODULES
  CORECLR_ENABLE_PROFILING=1 \
  CORECLR_PROFILER='{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}' \
  CORECLR_PROFILER_PATH="$ALVK_NATIVE_LIBRARY" \
  ALVORKIT_INTERCEPTION_PROFILER_PATH="$ALVK_NATIVE_LIBRARY" \
  ALVORKIT_INTERCEPTION_MODULES="$MODULES" "$@"
}

bench() {
  step "launch-time benchmark"
  dotnet build tools/LaunchBenchmark/LaunchBenchmark.csproj -c Release -v quiet -nologo
  dotnet tools/LaunchBenchmark/bin/Release/net10.0/LaunchBenchmark.dll \
    "$ALVK_PROOF_HOST" "$ALVK_NATIVE_LIBRARY" "${RUNS:-21}"
  step "patch benchmarks: install/remove latency, then patched-call cost (BenchmarkDotNet)"
  dotnet build tools/PatchBenchmark/PatchBenchmark.csproj -c Release -v quiet -nologo
  mkdir -p build/bench
  (cd build/bench && MODULES=PatchBenchmark profiled \
    dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" latency "${CYCLES:-500}")
  (cd build/bench && MODULES=PatchBenchmark profiled \
    dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" calls) |
    grep -E '^\||^BenchmarkDotNet|^(AMD|Intel)|^  \[Host\]'
  step "removal: a caller that inlines its target, before a patch, patched, after the removal (against its twin)"
  (cd build/bench && MODULES=PatchBenchmark DOTNET_TieredPGO=1 profiled \
    dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" removal)
  (cd build/bench && MODULES=PatchBenchmark DOTNET_TieredCompilation=0 profiled \
    dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" removal)
  step "woven hooks: a call through an empty prefix + postfix against the original (BenchmarkDotNet)"
  (cd build/bench && MODULES=PatchBenchmark profiled \
    dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" hooks) |
    grep -E '^\||^BenchmarkDotNet|^(AMD|Intel)|^  \[Host\]'
  step "hooks on an inlined target (static, a class's instance method, a static method of another assembly, static targets patched before their callers' first call; and the kinds whose callers keep the call: an overridable virtual, a generic class's method): the hooked caller / its unhooked twin, per phase, tiering on and off"
  for kind in static instance cross firstcall virtual generic; do
    for tiering in 1 0; do
      (cd build/bench && MODULES="PatchBenchmark;PatchBenchmark.Engine" DOTNET_TieredCompilation=$tiering profiled \
        dotnet "$ROOT/tools/PatchBenchmark/bin/Release/net10.0/PatchBenchmark.dll" inlinedhooks 20000 7 "$kind")
    done
  done
  step "scale and memory: an inert profiled process against an unprofiled one, 1,000 targets in one batch, PatchAll over 100"
  dotnet build tools/ScaleBenchmark/ScaleBenchmark.csproj -c Release -v quiet -nologo
  dotnet tools/ScaleBenchmark/bin/Release/net10.0/ScaleBenchmark.dll "$ALVK_NATIVE_LIBRARY" "${PAIRS:-9}"
  step "first use: Interceptor.Open, PatchAll over 100 targets and a hot reload (direct and watched), first and warm, in fresh processes (IL against ReadyToRun, alternated)"
  dotnet build tools/FirstUseBenchmark/FirstUseBenchmark.csproj -c Release -v quiet -nologo
  dotnet tools/FirstUseBenchmark/bin/Release/net10.0/FirstUseBenchmark.dll "$ALVK_NATIVE_LIBRARY" "${PAIRS:-9}"
  step "allocation capture benchmark"
  dotnet build tools/AllocationBenchmark/AllocationBenchmark.csproj -c Release -v quiet -nologo
  dotnet tools/AllocationBenchmark/bin/Release/net10.0/AllocationBenchmark.dll \
    "$ALVK_NATIVE_LIBRARY" "${RUNS:-7}" "${OBJECTS:-20000000}"
  step "hot reload: save -> first frame running the new body, ours (Release) beside dotnet watch (Debug), two projects"
  dotnet build tools/Launcher/AlvorKit.Interception.Launcher.csproj -c Release -v quiet -nologo
  dotnet build tools/ReloadBenchmark/ReloadBenchmark.csproj -c Release -v quiet -nologo
  # Twice: the live demo, then the live demo with a generated 32,000-line colony beside it.
  local project
  for project in demo large; do
    dotnet tools/ReloadBenchmark/bin/Release/net10.0/ReloadBenchmark.dll --demo samples/LiveDemo --project "$project" \
      --profiler "$ALVK_NATIVE_LIBRARY" --launcher tools/Launcher/bin/Release/net10.0/AlvorKit.Interception.Launcher.dll \
      --edits "${EDITS:-20}" --out "build/reload-bench-$project"
  done
}

# The test target's plan: stages, one after another; within a stage, lanes (separated by "|")
# run at the same time, each its steps in order. Two lanes share a stage so that each keeps busy
# a core the other leaves idle; a step that reads what a step of the other lane writes waits for
# that step (after_steps):
# - the managed build, the platform proofs' publishes, then the xunit tests without a runtime
#   (the binding, hot reload and hooks tests: these wait for the native builds), beside the
#   native lane (the checks of the sources, the C builds, their tests under the sanitizers, the
#   fuzz corpora, the cross builds), which needs none of the managed lane's output;
# - the proofs (one process per proof, TEST_THREADS classes at a time), with the library of both
#   lanes;
# - the emulated platform proofs (both RIDs at once);
# - the launcher and package tests alone: their watch and reload tests wait on MSBuild and the
#   compiler within fixed times, which a run beside the emulated proofs on a loaded machine
#   exceeded (two timeouts).
TEST_PLAN=(
  "build_managed platform_publish test_tools binding_tests hotreload_tests | include_check proofs_index format_check build_native call_check build_native_host native_tests tsan_tests fuzz_corpus artifact_checks"
  "proofs sanitized_proofs"
  "platform_proofs"
  "launcher_tests"
)
read -r -a TEST_STEPS <<<"$(printf '%s ' "${TEST_PLAN[@]}" | tr -d '|')"
# One row per step run: "name wall cpu lane": wall in seconds, cpu in hundredths of a second,
# lane the first step of the lane it ran in when its stage had several ("-" otherwise).
STEP_ROWS=()
STEP_DIR="$ROOT/build/step-logs"
STAGE_LANES=() # the other lanes of the stage running: "pid|steps"
LANES_CPU_DONE=0 # the CPU time of the lanes of the stages before (cpu_now)
RUNNING_STEP=""

# cpu_now: sets CPU_NOW to the CPU time (user + system, hundredths of a second) that this
# shell's children have used so far: the processes it started and waited for, and theirs; less
# the other lanes of the stage (STAGE_LANES) once reaped. Bash reaps a background lane when it
# ends, whatever step this shell is in, and its time then joins this shell's children's: the
# lane's own rows count it, so this shell's steps must not (each lane leaves its total in
# build/step-logs/<its first step>.cpu). Read with `times` in this shell itself (a command
# substitution is a new process, with none), between two looks at which lanes are reaped, again
# until both agree.
cpu_now() {
  local line user sys before
  while :; do
    lanes_reaped
    before=$LANES_REAPED
    times >"$STEP_DIR/times.$BASHPID"
    lanes_reaped
    [ "$LANES_REAPED" != "$before" ] || break
  done
  { read -r line; read -r user sys; } <"$STEP_DIR/times.$BASHPID"
  CPU_NOW=$(($(centis "$user") + $(centis "$sys") - LANES_CPU))
}

# lanes_reaped: LANES_REAPED, the pids of the stage's other lanes that are reaped (a lane that
# ended but is not reaped is a zombie, which kill -0 still finds), and LANES_CPU, their CPU time.
lanes_reaped() {
  local entry pid steps=() cpu
  LANES_REAPED=""
  LANES_CPU=$LANES_CPU_DONE
  for entry in "${STAGE_LANES[@]}"; do
    pid=${entry%%|*}
    kill -0 "$pid" 2>/dev/null && continue
    read -r -a steps <<<"${entry#*|}"
    cpu=$(cat "$STEP_DIR/${steps[0]}.cpu" 2>/dev/null || echo 0)
    LANES_REAPED+=" $pid"
    LANES_CPU=$((LANES_CPU + cpu))
  done
}

# centis 1m2.345s: 6234, that time in hundredths of a second.
centis() {
  local t=${1//,/.} minutes seconds whole fraction
  minutes=${t%%m*}
  seconds=${t#*m}
  seconds=${seconds%s}
  whole=${seconds%.*}
  fraction=${seconds#*.}00
  echo $((10#$minutes * 6000 + 10#$whole * 100 + 10#${fraction:0:2}))
}

# run_step NAME LANE: runs one step, its wall and CPU time added to STEP_ROWS and printed.
run_step() {
  local name=$1 lane=$2 start=$SECONDS cpu
  cpu_now
  cpu=$CPU_NOW
  RUNNING_STEP=$name
  "$name"
  RUNNING_STEP=
  touch "$STEP_DIR/$name.done"
  cpu_now
  STEP_ROWS+=("$name $((SECONDS - start)) $((CPU_NOW - cpu)) $lane")
  printf '==> step %s: %s s wall, %s s CPU\n' "$name" "$((SECONDS - start))" "$(seconds_of $((CPU_NOW - cpu)))"
}

# after_steps NAME...: for a step of a stage's first lane that needs what a step of another lane
# makes (the native library, say): waits until each named step that another lane of the stage
# runs has finished (build/step-logs/NAME.done), and fails if that lane ended without it. A step
# that no other lane of the stage runs (an earlier stage's, or one this run leaves out) is not
# waited for.
after_steps() {
  local name entry pid
  for name in "$@"; do
    for entry in "${STAGE_LANES[@]}"; do
      [[ " ${entry#*|} " == *" $name "* ]] || continue
      pid=${entry%%|*}
      until [ -f "$STEP_DIR/$name.done" ]; do
        if ! kill -0 "$pid" 2>/dev/null && [ ! -f "$STEP_DIR/$name.done" ]; then
          echo "build.sh: step $name, which $RUNNING_STEP needs, did not finish (the lane beside ended without it)" >&2
          return 1
        fi
        sleep 1
      done
    done
  done
}

# run_stage "STEPS | STEPS ...": the lanes of one stage at the same time. The first runs in this
# shell, its output as it comes; each other in a subshell, its output kept in
# build/step-logs/<its first step>.log and printed whole once the first lane is done (never
# interleaved with another lane's), its rows in <its first step>.rows. A lane stops at its first
# failed step (set -e), as the run does; the stage waits for every lane, then fails if one did.
run_stage() {
  local lanes=() steps=() name i
  IFS='|' read -r -a lanes <<<"$1"
  for i in "${!lanes[@]}"; do
    [ "$i" -gt 0 ] || continue
    read -r -a steps <<<"${lanes[$i]}"
    rm -f "$STEP_DIR/${steps[0]}.rows"
    rm -f "$STEP_DIR/${steps[0]}.cpu"
    (
      STEP_ROWS=()
      STAGE_LANES=()
      LANES_CPU_DONE=0
      trap 'lane_exit "${steps[0]}"' EXIT
      for name in "${steps[@]}"; do run_step "$name" "${steps[0]}"; done
    ) >"$STEP_DIR/${steps[0]}.log" 2>&1 </dev/null &
    STAGE_LANES+=("$!|${steps[*]}")
    printf '\n==> beside the steps below: %s (its output at their end; as it comes: build/step-logs/%s.log)\n' \
      "${steps[*]}" "${steps[0]}"
  done
  read -r -a steps <<<"${lanes[0]}"
  for name in "${steps[@]}"; do
    if [ "${#lanes[@]}" -gt 1 ]; then run_step "$name" "${steps[0]}"; else run_step "$name" -; fi
  done
  join_lanes
}

# lane_exit FIRST: on the way out of a lane's subshell, its rows (FIRST.rows) and its CPU time in
# all (FIRST.cpu: this shell's and its children's, what its parent's children's time grows by).
lane_exit() {
  local own_user own_sys user sys
  [ "${#STEP_ROWS[@]}" -eq 0 ] || printf '%s\n' "${STEP_ROWS[@]}" >"$STEP_DIR/$1.rows"
  times >"$STEP_DIR/times.$BASHPID"
  { read -r own_user own_sys; read -r user sys; } <"$STEP_DIR/times.$BASHPID"
  rm -f "$STEP_DIR/times.$BASHPID"
  echo $(($(centis "$own_user") + $(centis "$own_sys") + $(centis "$user") + $(centis "$sys"))) >"$STEP_DIR/$1.cpu"
}

# join_lanes: waits for the other lanes of the stage (STAGE_LANES), prints each one's output
# and takes its rows; fails if one failed, naming the step. Also run on the way out of a failed
# run, so that a lane still running is waited for and what it did is shown.
join_lanes() {
  local entry pid steps=() lane_rc rc=0 row done_steps
  for entry in "${STAGE_LANES[@]}"; do
    pid=${entry%%|*}
    read -r -a steps <<<"${entry#*|}"
    lane_rc=0
    wait "$pid" || lane_rc=$?
    printf '\n==> the steps that ran beside: %s\n' "${steps[*]}"
    cat "$STEP_DIR/${steps[0]}.log"
    done_steps=0
    if [ -f "$STEP_DIR/${steps[0]}.rows" ]; then
      while IFS= read -r row; do
        STEP_ROWS+=("$row")
        done_steps=$((done_steps + 1))
      done <"$STEP_DIR/${steps[0]}.rows"
    fi
    if [ "$lane_rc" -ne 0 ]; then
      printf '\n!!! FAILED: step %s (exit status %s; it ran beside the steps above, its output is above)\n' \
        "${steps[$done_steps]:-?}" "$lane_rc"
      [ "$rc" -ne 0 ] || rc=$lane_rc
    fi
  done
  # Their time is in this shell's children's now: kept out of its later steps.
  lanes_reaped
  LANES_CPU_DONE=$LANES_CPU
  STAGE_LANES=()
  return "$rc"
}

# seconds_of CENTIS: 1234 -> 12.3
seconds_of() { printf '%d.%d' $(($1 / 100)) $(($1 % 100 / 10)); }

# ratio CENTIS WALL: the CPU time over the wall time, cores kept busy on average (2 decimals).
ratio() {
  [ "$2" -gt 0 ] || { echo -; return; }
  local r=$(($1 / $2))
  printf '%d.%02d' $((r / 100)) $((r % 100))
}

# The table of the steps run: each one's wall time, its CPU time (user + system of its
# processes) and their ratio, the cores it kept busy on average; the lane it ran in when
# another ran beside it. The total's wall time is the run's (lanes overlap), its CPU the sum.
print_step_times() {
  local row name wall cpu lane total_cpu=0
  [ "${#STEP_ROWS[@]}" -gt 0 ] || return 0
  printf '\n==> step times (wall and CPU seconds; cores: CPU / wall; lane: the steps ran beside another lane)\n'
  printf '| step | wall s | CPU s | cores | lane |\n|---|---:|---:|---:|---|\n'
  for row in "${STEP_ROWS[@]}"; do
    read -r name wall cpu lane <<<"$row"
    [ "$lane" = - ] && lane=""
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$wall" "$(seconds_of "$cpu")" "$(ratio "$cpu" "$wall")" "$lane"
    total_cpu=$((total_cpu + cpu))
  done
  wall=$((SECONDS - RUN_START))
  printf '| total | %s | %s | %s | |\n' "$wall" "$(seconds_of "$total_cpu")" "$(ratio "$total_cpu" "$wall")"
}

# At the end of the steps: a lane still running waited for and shown, the times, and when a
# step failed, its failed tests named again with their messages, so that the end of the log (all
# a CI excerpt may keep) says what failed.
run_steps_exit() {
  local rc=$1
  if [ -n "$RUNNING_STEP" ] && [ "$rc" -ne 0 ]; then
    printf '\n!!! FAILED: step %s (exit status %s)\n' "$RUNNING_STEP" "$rc"
  elif [ -n "$RUNNING_STEP" ]; then
    printf '\n!!! STOPPED: step %s (the run was ended by a signal)\n' "$RUNNING_STEP"
  fi
  join_lanes || true
  print_step_times
  rm -f "$STEP_DIR"/times.*
  if [ "$rc" -ne 0 ] && [ -d "$ROOT/build/test-results" ]; then
    /usr/bin/python3 "$ROOT/tools/test_failures.py" "$ROOT/build/test-results"
  fi
}

# run_steps STAGE...: each stage ("STEPS" or "STEPS | STEPS ...", run_stage) in order.
run_steps() {
  local stage name
  for name in $(printf '%s ' "$@" | tr -d '|'); do
    if [[ " ${TEST_STEPS[*]} " != *" $name "* ]]; then
      echo "build.sh: no step $name (steps: ${TEST_STEPS[*]})" >&2
      exit 64
    fi
  done
  rm -rf "$ROOT/build/test-results"
  mkdir -p "$STEP_DIR"
  rm -f "$STEP_DIR"/*.done
  RUN_START=$SECONDS
  trap 'run_steps_exit $?' EXIT
  for stage in "$@"; do run_stage "$stage"; done
}

target=${1:-test}
case "$target" in
  native) require demo; build_release ;;
  managed) build_managed ;;
  test) require test; run_steps "${TEST_PLAN[@]}" ;;
  step) shift; [ "$#" -gt 0 ] || { echo "usage: ./build.sh step NAME... (${TEST_STEPS[*]})" >&2; exit 64; }; run_steps "$*" ;;
  fuzz) tests/fuzz/run.sh long "${FUZZ_SECONDS:-600}" ;;
  tsan) JOBS="$JOBS" tests/native/run_tsan.sh all ;;
  platform) platform_publish; platform_proofs ;;
  stress) build_native; build_managed; stress ;;
  packages) require demo; build_release; packages ;;
  bindings) bindings ;;
  demo) require demo; build_release; demo ;;
  bench) require demo; build_release; build_managed; bench ;;
  *) echo "usage: ./build.sh [test|step NAME...|demo|native|managed|packages|bindings|bench|tsan|stress|fuzz|platform]" >&2; exit 64 ;;
esac
