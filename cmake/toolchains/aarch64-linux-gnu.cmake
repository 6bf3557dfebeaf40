# Cross-compiling for aarch64 Linux on Debian with g++-aarch64-linux-gnu and arm64 multiarch
# packages (libraries in /usr/lib/aarch64-linux-gnu, headers shared in /usr/include).
# Programs built here run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), which is how CTest
# and gtest_discover_tests start them. scripts/test_arm64.sh uses this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
# Libraries and packages of the target architecture only; programs (glslc) from the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
