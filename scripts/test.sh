#!/usr/bin/env bash
# Installs what is missing, builds tvk in its default configuration and in the other build
# switches CI covers, and runs every test on the default Vulkan device (lavapipe here) with the
# Khronos validation layer on, except those labelled slow (every torchvision classifier,
# scripted and traced: about an hour here). Then the arm64 portability pass: the pipelines the
# default build's PipelineVariants test listed, compiled and run under qemu on arm64 lavapipe
# (scripts/test_arm64.sh --portability; TVK_TEST_ARM64=0 skips it).
#
# scripts/test.sh --slow: the same, and the slow tests too.
#
# scripts/test.sh --sanitize: instead, builds everything under AddressSanitizer (with
# LeakSanitizer) and UndefinedBehaviorSanitizer in build-asan/ and runs the C++ and CLI tests
# there (not the slow ones or the portability pass; not Python, Java, install or the user guide,
# which load the library into programs built without the sanitizers; see below for the rest). Leaks inside the Vulkan
# driver, the validation layer and the loader are suppressed (tests/sanitize/lsan.supp); tvk's
# own are not.
#
# scripts/test.sh --tsan: builds under ThreadSanitizer in build-tsan/ and runs the tests that
# call one module from several threads.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${TVK_JOBS:-$(nproc)}

./scripts/install_deps.sh test

export TVK_REQUIRE_VULKAN=1   # a missing Vulkan device fails the run instead of skipping
export TVK_VALIDATION=1       # VK_LAYER_KHRONOS_validation; any message fails the test
export TVK_SYNC_VALIDATION=1  # and its synchronization validation: a missing barrier fails too
export TVK_CACHE_DIR="$root/build/cache"

configure_and_build() {  # dir, cmake args... (TARGETS: what to build; default all)
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
  # shellcheck disable=SC2086
  cmake --build "$dir" -j"$jobs" ${TARGETS:+--target $TARGETS}
}

if [[ "${1:-}" == --sanitize ]]; then
  echo "== sanitizer build (ASan + LSan + UBSan)"
  # -O1, as the sanitizers' own docs advise: about a sixth less compile time than -O2 here, and the
  # host code under test is no bottleneck of these runs.
  configure_and_build build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DTVK_SANITIZE=ON -DTVK_BUILD_PYTHON=OFF -DTVK_BUILD_JAVA=OFF
  cd build-asan
  # Libraries stay loaded until the leak report (tests/sanitize/keep_libraries_loaded.c). It is
  # preloaded alone (the Python that tests start is not built with the sanitizers), so ASan is
  # told not to insist on coming first.
  cc -shared -fPIC -O2 -o keep_libraries_loaded.so "$root/tests/sanitize/keep_libraries_loaded.c"
  export LD_PRELOAD="$PWD/keep_libraries_loaded.so"
  # A 32 MiB quarantine (default 256): freed memory is still poisoned long enough to catch a use
  # after free, and loops that free and allocate large buffers (lavapipe's device memory is host
  # memory) stop spending their time in the kernel recycling it: 39 s -> 5 s for
  # CommandStream.FinishedBatchesAreRetiredWithoutReadingBack.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:verify_asan_link_order=0:quarantine_size_mb=32
  export LSAN_OPTIONS=suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export TVK_CACHE_DIR="$root/build-asan/cache"
  # This pass looks for host-memory errors. The default pass has validated the command streams,
  # which do not change under the sanitizers, with the core and synchronization layers; here the
  # validation layer is off (it took a fifth of the Vulkan tests' time, docs/reliability.md).
  # Left out as well:
  # runs that repeat host code already covered here, for device paths and timing: the optimized
  # models under kernel flips (their host code is the op tests' flips'), fence polling (WaitSpin),
  # op-by-op model runs (every op runs eagerly in the op tests) and host import (UploadChunks
  # keeps the chunked uploads' copies).
  export TVK_VALIDATION=0 TVK_SYNC_VALIDATION=0
  ctest --output-on-failure -j"$jobs" -LE "slow|stress|portability|python|java|install|docs" \
    -E "UnderKernelFlip|^WaitSpin\\.|^OpByOp\\.|^HostImport" --timeout 3600
  exit
fi

if [[ "${1:-}" == --tsan ]]; then
  # ThreadSanitizer over the tests that call one module from several threads: the interpreter
  # (CPU) and planned replays (Vulkan; the driver's own threads are not instrumented). Any
  # report fails the run (TSan's exit code 66).
  echo "== ThreadSanitizer build"
  configure_and_build build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTVK_TSAN=ON -DTVK_BUILD_PYTHON=OFF \
    -DTVK_BUILD_JAVA=OFF
  cd build-tsan
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  export TVK_CACHE_DIR="$root/build-tsan/cache"
  ctest --output-on-failure -j"$jobs" --timeout 3600 \
    -R 'OneModuleFromFourThreads|OneInterpretedModuleFromFourThreads|SeveralModulesOnOneDevice'
  exit
fi

# The other build switches: each builds the library and the unit tests, which pass. The
# wrapper and shaderc switches are independent (how libvulkan is loaded, when GLSL is compiled),
# so one build flips both: a library build less in CI.
if [[ "${TVK_TEST_VARIANTS:-1}" != 0 ]]; then
  for variant in "wrapper-off-shaderc-runtime:-DTVK_USE_VULKAN_WRAPPER=OFF -DTVK_USE_SHADERC_RUNTIME=ON" \
                 "vulkan-off:-DTVK_USE_VULKAN=OFF"; do
    name=${variant%%:*}
    read -r -a flags <<<"${variant#*:}"
    echo "== build variant $name (${flags[*]})"
    mkdir -p "build-variants"
    # At -O1: these builds check that the switches compile and the unit tests pass, not speed;
    # -O1 compiles a quarter faster than the default build's -O3.
    flags+=(-DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG")
    if [[ "$name" == vulkan-off ]]; then
      TARGETS=unit_tests configure_and_build "build-variants/$name" "${flags[@]}"
      # No Vulkan in the library: the Vulkan tests skip and the NoDriver tests check the clear errors.
      (cd "build-variants/$name" && TVK_REQUIRE_VULKAN=0 TVK_EXPECT_NO_VULKAN=1 ctest -L unit --output-on-failure -j"$jobs")
    else
      TARGETS="unit_tests exit_order_test" configure_and_build "build-variants/$name" "${flags[@]}"
      (cd "build-variants/$name" && ctest -L unit --output-on-failure -j"$jobs")
    fi
  done
fi

echo "== default build"
mkdir -p build
configure_and_build build
cd build
if [[ "${1:-}" == --slow ]]; then
  ctest --output-on-failure -j"$jobs"   # everything, the tests labelled slow included
else
  ctest --output-on-failure -j"$jobs" -LE slow
fi
if [[ "${TVK_TEST_ARM64:-1}" != 0 ]]; then
  echo "== arm64 portability pass"
  "$root/scripts/test_arm64.sh" --portability "$root/build/pipeline_variants.txt"
fi
