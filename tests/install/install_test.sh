#!/usr/bin/env bash
# The installed package, not the build tree: `cmake --install` into a fresh prefix, then build
# examples/ against it with find_package(tvk CONFIG), and quickstart.cpp with pkg-config, and run
# them and the installed CLI. Usage: install_test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }
uses_installed_lib() {  # binary: does the dynamic linker resolve libtvk.so to the prefix's?
  local lib
  lib=$(ldd "$1" | awk '$1 == "libtvk.so" {print $3}')
  [[ -n "$lib" && "$(realpath "$lib")" == "$(realpath "$prefix/lib/libtvk.so")" ]]
}

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
java=()
[[ -e "$build/java/tvk.jar" ]] && java=(lib/libtvk_jni.so share/java/tvk.jar)  # built with the Java API
for f in bin/tvk "${java[@]}" include/tvk/tvk.h include/tvk/version.h lib/libtvk.so lib/cmake/tvk/tvkConfig.cmake \
         lib/cmake/tvk/tvkConfigVersion.cmake lib/cmake/tvk/tvkTargets.cmake lib/pkgconfig/tvk.pc; do
  [[ -e "$prefix/$f" ]] || fail "$f is not installed"
done
if grep -rl "$build\|$src" "$prefix/lib/cmake" "$prefix/lib/pkgconfig" "$prefix/include"; then
  fail "the installed package refers to the build or source tree"
fi
# The installed CLI runs with the installed library (RPATH $ORIGIN/../lib).
uses_installed_lib "$prefix/bin/tvk" || fail "bin/tvk does not use $prefix/lib/libtvk.so"
"$prefix/bin/tvk" info | grep -q "vulkan available: yes" || fail "the installed tvk sees no Vulkan device"

# A consumer project: the examples, configured on their own against the prefix.
cmake -S "$src/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/examples-configure.log" || { cat "$work/examples-configure.log"; fail "configuring examples/"; }
cmake --build "$work/examples" -j2 >"$work/examples-build.log" 2>&1 || { cat "$work/examples-build.log"; fail "building examples/"; }
! grep -q "warning" "$work/examples-build.log" || { cat "$work/examples-build.log"; fail "warnings building examples/"; }
uses_installed_lib "$work/examples/quickstart" || fail "quickstart does not use the installed library"
"$work/examples/quickstart"
/usr/bin/python3 - "$work/model.pt" <<'PY'
import sys, torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                        torch.nn.Linear(8, 10)).eval()
torch.jit.save(torch.jit.script(m), sys.argv[1])
PY
"$work/examples/run_model" "$work/model.pt" 1 3 32 32

# pkg-config, as a Makefile user would (relocatable: the prefix comes from the .pc file's place).
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ "$(pkg-config --modversion tvk)" == "$(sed -n 's/^#define TVK_VERSION "\(.*\)"/\1/p' "$prefix/include/tvk/version.h")" ]] ||
  fail "pkg-config's version differs from version.h"
# shellcheck disable=SC2046
g++ -std=c++20 -Wall -Wextra -o "$work/quickstart_pc" "$src/examples/quickstart.cpp" $(pkg-config --cflags --libs tvk) \
  -Wl,-rpath,"$prefix/lib"
"$work/quickstart_pc"
echo "installed package: CLI, CMake package and pkg-config all work"
