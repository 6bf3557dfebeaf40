#!/usr/bin/env bash
# Fuzzes every parser of untrusted input with libFuzzer under ASan + UBSan (issue 14):
# the zip reader, the unpickler, the TorchScript parser, the .npy reader, a whole load +
# forward on the CPU and on Vulkan, a torch.export program's JSON (in a .pt2 archive), and generated programs (the input's bytes choose each program's
# structure) run under tight limits. Usage: scripts/fuzz.sh [SECONDS per target, default 60]
# [TARGET ...]. Findings land in build-fuzz/findings/; a summary table (exec counts) is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(zip unpickle parser npy load load_vulkan program export)

missing=()
for p in clang-15 libfuzzer-15-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=$root/build-fuzz
mkdir -p "$build"
CC=clang-15 CXX=clang++-15 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTVK_FUZZ=ON \
  -DTVK_BUILD_TESTS=OFF -DTVK_BUILD_PYTHON=OFF >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"${TVK_JOBS:-$(nproc)}" --target $(printf 'fuzz_%s ' "${targets[@]}")

corpus=$build/corpus
[[ -d $corpus/zip ]] || /usr/bin/python3 "$root/tests/fuzz/make_corpus.py" "$corpus"
mkdir -p "$build/findings"
export TVK_CACHE_DIR=$build/cache
# lavapipe allocates for the life of the process; LeakSanitizer would report the driver's.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
printf '| target | seconds | executions | corpus | findings |\n|---|---|---|---|---|\n' >"$build/summary.md"
for t in "${targets[@]}"; do
  max_len=65536
  [[ $t == load* || $t == zip ]] && max_len=1048576
  log=$build/fuzz_$t.log
  # Regression inputs from earlier findings join the corpus (tests/fuzz/regressions/<target>).
  mkdir -p "$corpus/$t"  # program starts from nothing: every input is a program
  dirs=("$corpus/$t")
  [[ -d $root/tests/fuzz/regressions/$t ]] && dirs+=("$root/tests/fuzz/regressions/$t")
  set +e
  "$build/tests/fuzz/fuzz_$t" "${dirs[@]}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=6144 \
    -max_len=$max_len -print_final_stats=1 -artifact_prefix="$build/findings/$t-" >"$log" 2>&1
  status=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  size=$(ls "$corpus/$t" | wc -l)
  found=$(ls "$build/findings" | grep -c "^$t-" || true)
  printf '| %s | %s | %s | %s | %s%s |\n' "$t" "$seconds" "$execs" "$size" "$found" \
    "$([[ $status != 0 ]] && echo " (exit $status, see $log)")" | tee -a "$build/summary.md"
done
cat "$build/summary.md"
