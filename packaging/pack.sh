#!/usr/bin/env bash
# Builds the NuGet packages and prints their paths, one a line, on stdout (everything else
# goes to stderr):
#   AlvorKit.Interception.Profiler.Native   the native library (runtimes/<rid>/native/) + buildTransitive
#   AlvorKit.Interception                   managed/AlvorKit.Interception (when it exists) + the binding
#   AlvorKit.Interception.Launcher          the alvorkit-intercept .NET tool (+ the native library)
# The native library must already be built (./build.sh native, or any build/native-<rid>/).
#
#   packaging/pack.sh                     into build/packages
#   ALVK_PACKAGE_OUTPUT=dir packaging/pack.sh
#   ALVK_PACK_API=0 packaging/pack.sh     the binding alone, even if managed/AlvorKit.Interception exists
#   ALVK_PACKAGE_BASELINE=AlvorKit.Interception.X.Y.Z.nupkg packaging/pack.sh
#                                         AlvorKit.Interception's API also checked against that
#                                         released package (package validation's baseline)
# Their version is computed from Git (MinVer; docs/Packages.md, "Versions"); the packages of
# these ids already in the output folder, of any version, are removed first.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${ALVK_PACKAGE_OUTPUT:-$ROOT/build/packages}
CONFIG=${CONFIGURATION:-Release}
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

IDS=(AlvorKit.Interception.Profiler.Native AlvorKit.Interception AlvorKit.Interception.Launcher)
args=(-c "$CONFIG" -o "$OUT" -nologo -v quiet)
if [ "${ALVK_PACK_API:-1}" = 0 ]; then
  args+=(-p:AlvkIncludeApi=false)
fi
if [ -n "${ALVK_PACKAGE_BASELINE:-}" ]; then
  args+=("-p:AlvkPackageBaseline=$(realpath "$ALVK_PACKAGE_BASELINE")")
fi

# Packages of an earlier commit (another version) would stay beside the new ones, and a
# consumer's floating version could pick one of them: only this build's are left.
mkdir -p "$OUT"
for id in "${IDS[@]}"; do
  find "$OUT" -maxdepth 1 -name "$id.[0-9]*.nupkg" -delete
done
# The tool's publish folder, which its pack fills: a publish copies a file only when it is newer
# than the one there, so a file of an earlier pack (e.g. a Debug build, newer) would be packed.
rm -rf "tools/Launcher/bin/$CONFIG/net10.0/publish"
echo "pack.sh: packing into $OUT" >&2
dotnet pack packaging/AlvorKit.Packages.proj "${args[@]}" >&2

# The version MinVer gave them: the native package's, which the others must share.
shopt -s nullglob
native=("$OUT"/AlvorKit.Interception.Profiler.Native.[0-9]*.nupkg)
[ ${#native[@]} -eq 1 ] || { echo "pack.sh: expected one AlvorKit.Interception.Profiler.Native package in $OUT, found ${#native[@]}" >&2; exit 1; }
VERSION=$(basename "${native[0]}" .nupkg)
VERSION=${VERSION#AlvorKit.Interception.Profiler.Native.}
echo "pack.sh: packed version $VERSION" >&2

# A restore takes a package version from the global packages folder when it is already there,
# so a consumer would keep getting the previous build of this same version: drop those copies.
CACHE=${NUGET_PACKAGES:-$HOME/.nuget/packages}
for id in "${IDS[@]}"; do
  stale="$CACHE/$(printf '%s' "$id" | tr '[:upper:]' '[:lower:]')/$VERSION"
  if [ -d "$stale" ]; then
    rm -rf "$stale"
    echo "pack.sh: removed the cached $id $VERSION ($stale) so the next restore takes this build" >&2
  fi
done

for id in "${IDS[@]}"; do
  package="$OUT/$id.$VERSION.nupkg"
  [ -f "$package" ] || { echo "pack.sh: $package was not produced" >&2; exit 1; }
  echo "$package"
done
