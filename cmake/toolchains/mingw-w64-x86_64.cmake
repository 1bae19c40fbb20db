# Cross-compiling the profiler for win-x64 with Debian's mingw-w64 (gcc-mingw-w64-x86-64):
# the build check that keeps the Windows RID a build away. The shipped Windows library is
# meant to be built with MSVC or clang-cl on Windows; this proves the sources and exports.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
