#!/usr/bin/env bash
# Installs what is missing, builds tvk in its default configuration and in the other build
# switches CI covers, and runs every test on the default Vulkan device (lavapipe here) with the
# Khronos validation layer on. Ends with ctest's summary of the default build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${TVK_JOBS:-$(nproc)}

./scripts/install_deps.sh test

export TVK_REQUIRE_VULKAN=1   # a missing Vulkan device fails the run instead of skipping
export TVK_VALIDATION=1       # VK_LAYER_KHRONOS_validation; any message fails the test
export TVK_SYNC_VALIDATION=1  # and its synchronization validation: a missing barrier fails too
export TVK_CACHE_DIR="$root/build/cache"

configure_and_build() {  # dir, cmake args...
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
  cmake --build "$dir" -j"$jobs"
}

# The other build switches: each builds and passes the unit tests.
if [[ "${TVK_TEST_VARIANTS:-1}" != 0 ]]; then
  for variant in "wrapper-off:-DTVK_USE_VULKAN_WRAPPER=OFF" "shaderc-runtime:-DTVK_USE_SHADERC_RUNTIME=ON" \
                 "vulkan-off:-DTVK_USE_VULKAN=OFF"; do
    name=${variant%%:*}
    flag=${variant#*:}
    echo "== build variant $name ($flag)"
    mkdir -p "build-variants"
    configure_and_build "build-variants/$name" "$flag"
    if [[ "$name" == vulkan-off ]]; then
      # No Vulkan in the library: the Vulkan tests skip and the NoDriver tests check the clear errors.
      (cd "build-variants/$name" && TVK_REQUIRE_VULKAN=0 TVK_EXPECT_NO_VULKAN=1 ctest -L unit --output-on-failure -j"$jobs")
    else
      (cd "build-variants/$name" && ctest -L unit --output-on-failure -j"$jobs")
    fi
  done
fi

echo "== default build"
mkdir -p build
configure_and_build build
cd build
ctest --output-on-failure -j"$jobs"
