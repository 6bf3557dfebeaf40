#!/usr/bin/env bash
# PEP 517, as a user's pip does it, offline: `pip wheel` builds a wheel of the checkout
# (pyproject.toml -> setuptools -> setup.py -> CMake), a fresh virtual environment that sees
# Debian's packages (numpy, torch; no index is reached) installs that wheel, and outside the
# source tree `import tvk` works and the seed's Python workflow (examples/python/
# mobilenet_vulkan.py) runs from it.
# Usage: pip_install_test.sh SOURCE_DIR WORK_DIR [BUILD_DIR]
# With BUILD_DIR, the wheel packages that CMake build's library and extension (TVK_PREBUILT)
# instead of compiling the library again (about 5 minutes on 2 cores): the default suite's form.
# Without, the whole build from source, as a user's pip runs it (label slow).
set -euo pipefail
src=$1
work=$2
if [[ -n "${3:-}" ]]; then export TVK_PREBUILT=$3; fi
rm -rf "$work"
mkdir -p "$work"
# A copy of the sources, so the build leaves nothing in the checkout (setuptools writes build/
# and *.egg-info beside setup.py).
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | (mkdir -p "$work/src" && tar -C "$work/src" -xf -)
/usr/bin/python3 -m venv --system-site-packages "$work/build-venv"
"$work/build-venv/bin/pip" wheel --no-index --no-build-isolation --no-deps -w "$work/dist" "$work/src" \
  >"$work/pip-wheel.log" 2>&1 || { tail -40 "$work/pip-wheel.log"; exit 1; }
wheels=("$work"/dist/tvk-*.whl)
[[ ${#wheels[@]} == 1 && -f ${wheels[0]} ]] || { echo "expected one tvk wheel in $work/dist: ${wheels[*]}"; exit 1; }
echo "built ${wheels[0]##*/}"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --no-index --no-deps "${wheels[0]}" >"$work/pip-install.log" 2>&1 ||
  { tail -40 "$work/pip-install.log"; exit 1; }
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np
import tvk
print("imported", tvk.__file__)
assert "/venv/" in tvk.__file__, tvk.__file__
t = tvk.tensor([[1.0, -2.0], [3.0, -4.0]])
assert np.array_equal(tvk.relu(t).numpy(), np.array([[1, 0], [3, 0]], np.float32))
if tvk.is_vulkan_available():
    assert np.array_equal(tvk.relu(t.vulkan()).cpu().numpy(), np.array([[1, 0], [3, 0]], np.float32))
print("ok: tvk", tvk.__version__, "vulkan", tvk.is_vulkan_available())
PY
"$work/venv/bin/python" "$src/examples/python/mobilenet_vulkan.py"
