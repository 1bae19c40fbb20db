# Cross-compiling the profiler for win-x64 with Debian's mingw-w64 (gcc-mingw-w64-x86-64): the
# library the packages built here ship for that RID (build/native-win-x64;
# tests/artifact/check_cross_windows.sh checks its machine, exports and imports). On Windows,
# MSVC or clang-cl builds it from the same sources.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
