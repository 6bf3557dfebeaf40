#!/usr/bin/env bash
# The ARM64 proof that runs here: cross-compiles tvk (library, CLI, C++ tests) for aarch64 Linux
# with Debian's g++-aarch64-linux-gnu and arm64 multiarch packages, then runs the unit, op and
# model tests under qemu-user on arm64 lavapipe (subgroup size 4 there), with the validation
# layer on. Tests that start the tvk CLI as a separate program (CliTest.*, the Python-driven
# ones) are left out: without binfmt_misc, an aarch64 program cannot be exec'd directly. So is
# PipelineVariants (label portability: every op case under every option set, which the mode
# below replays in part), and the stress test (label stress: 1,000 inferences, too many to emulate).
# Slow (lavapipe's LLVM-compiled shaders run under emulation); the README says how long.
#
# scripts/test_arm64.sh --portability LIST [--all]: the portability pass CI runs (scripts/test.sh)
# instead of the suite. LIST is the x86-64 run's pipeline list (build/pipeline_variants.txt,
# written by the test PipelineVariants.op_tests). Under qemu on arm64 lavapipe, with empty
# pipeline caches (tvk's and Mesa's on-disk shader cache) so that every shader is compiled, it
# replays the op cases that made the pipelines there (against torch's outputs and the CPU
# kernels), then makes every chosen pipeline the replay did not, so that a shader which aborts
# this driver's compiler fails CI. The chosen pipelines: a cover of the list (every shader with
# every code-choosing constant set, each size constant seen as 0, 1 and more; op_cases_test.cpp,
# covering_pipelines), or with --all every listed one (about three times as long). Builds only
# the library and op_tests.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${TVK_JOBS:-$(nproc)}
./scripts/install_deps.sh arm64
if [[ "${1:-}" == --portability ]]; then
  list=$(realpath "${2:?usage: scripts/test_arm64.sh --portability build/pipeline_variants.txt [--all]}")
  cover=1
  [[ "${3:-}" == --all ]] && cover=0
  start=$(date +%s)
  # At -O1: the replay's time is the driver's shader compiler under qemu, not tvk's host code,
  # and -O1 cross-compiles a sixth faster than -O3.
  cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DTVK_BUILD_PYTHON=OFF -DTVK_BUILD_JAVA=OFF >/tmp/tvk-arm64-configure.log 2>&1 || { cat /tmp/tvk-arm64-configure.log; exit 1; }
  cmake --build build-arm64 --target op_tests -j"$jobs"
  cases=$PWD/build-arm64/portability/op_cases
  /usr/bin/python3 tests/ops/gen_op_cases.py "$cases" >/dev/null
  cache=$(mktemp -d)
  trap 'rm -rf "$cache"' EXIT
  export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.aarch64.json VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.aarch64.json
  built=$(date +%s)
  # One process per core, each replaying a share of the runs (TVK_PIPELINE_SHARD) with its own cache.
  pids=()
  for ((i = 0; i < jobs; ++i)); do
    mkdir -p "$cache/$i"
    TVK_REQUIRE_VULKAN=1 TVK_VALIDATION=1 TVK_CACHE_DIR=$cache/$i TVK_OP_CASES_DIR=$cases TVK_PIPELINE_REPLAY=$list \
      TVK_PIPELINE_COVER=$cover TVK_PIPELINE_SHARD=$i/$jobs MESA_SHADER_CACHE_DISABLE=true \
      qemu-aarch64-static build-arm64/tests/op_tests --gtest_also_run_disabled_tests \
      --gtest_filter='PipelineVariants.*' >"$cache/log$i" 2>&1 &
    pids+=($!)
  done
  failed=0
  for ((i = 0; i < jobs; ++i)); do
    if wait "${pids[$i]}"; then
      grep -E "covering|pipelines of" "$cache/log$i" || true
    else
      echo "== arm64 portability pass, shard $i/$jobs failed:"
      tail -n 60 "$cache/log$i"
      failed=1
    fi
  done
  echo "arm64 portability pass: built in $((built - start)) s, replayed in $(( $(date +%s) - built )) s"
  exit $failed
fi
cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
  -DTVK_BUILD_PYTHON=OFF -DTVK_BUILD_JAVA=OFF >/tmp/tvk-arm64-configure.log 2>&1 || { cat /tmp/tvk-arm64-configure.log; exit 1; }
cmake --build build-arm64 -j"$jobs"
file build-arm64/tvk | grep -q "ARM aarch64" || { echo "test_arm64.sh: build-arm64/tvk is not an aarch64 program"; exit 1; }

export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.aarch64.json VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.aarch64.json
export TVK_REQUIRE_VULKAN=1 TVK_VALIDATION=1 TVK_CACHE_DIR=$PWD/build-arm64/cache
# resnet18 on emulated lavapipe takes minutes per run: wait for the queue longer than 120 s.
export TVK_WAIT_TIMEOUT_S=3600
qemu-aarch64-static build-arm64/tvk info
cd build-arm64
start=$(date +%s)
ctest -L "unit|ops|models" -LE "slow|stress|portability" -E "^(CliTest|Cli)\.|cli\.|install\.|docs\." --output-on-failure -j"$jobs" --timeout 3600 "$@"
echo "arm64 tests under qemu took $(( $(date +%s) - start )) s"
