#!/usr/bin/env bash
# Builds libtvk.so and libtvk_jni.so for Android with the NDK's CMake toolchain, into
# build-android/ABI. Usage: ANDROID_NDK=/path/to/ndk scripts/build_android.sh [ABI]
#   ABI: arm64-v8a (default), armeabi-v7a, x86_64 or x86; ANDROID_PLATFORM defaults to android-24
#   (Vulkan 1.0 arrived in API 24; tvk needs a Vulkan 1.1 driver at run time).
# Shaders are compiled on this machine with glslc; volk and the Vulkan headers come from this
# machine's Debian packages (libvulkan-volk-dev, libvulkan-dev): src/CMakeLists.txt copies them
# into the build folder so that no other host header reaches the NDK compiler. Android Studio users build android/
# instead, which runs the same CMake through Gradle.
# Not verified here: no NDK can be installed on the machines this project is developed on.
set -euo pipefail
cd "$(dirname "$0")/.."
abi=${1:-arm64-v8a}
: "${ANDROID_NDK:?set ANDROID_NDK to the Android NDK folder (r23 or later)}"
toolchain=$ANDROID_NDK/build/cmake/android.toolchain.cmake
[[ -f "$toolchain" ]] || { echo "build_android.sh: $toolchain not found (is ANDROID_NDK an NDK folder?)" >&2; exit 1; }
command -v glslc >/dev/null || { echo "build_android.sh: glslc is needed on this machine (apt-get install glslc)" >&2; exit 1; }

build=build-android/$abi

cmake -S . -B "$build" \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DANDROID_ABI="$abi" -DANDROID_PLATFORM="${ANDROID_PLATFORM:-android-24}" \
  -DANDROID_STL=c++_shared -DCMAKE_BUILD_TYPE=Release \
  -DTVK_BUILD_TESTS=OFF -DTVK_BUILD_PYTHON=OFF -DTVK_BUILD_CLI=OFF
cmake --build "$build" -j"$(nproc)" --target tvk tvk_jni
echo "built $build/src/libtvk.so and $build/java/libtvk_jni.so for $abi (package them with libc++_shared.so)"
