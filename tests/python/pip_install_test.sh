#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment that sees Debian's packages (numpy, setuptools,
# wheel; no index is reached), then `import tvk` there, outside the source tree.
# Usage: pip_install_test.sh SOURCE_DIR WORK_DIR [BUILD_DIR]
# With BUILD_DIR, pip packages that CMake build's library and extension (TVK_PREBUILT) instead of
# compiling the library again (about 5 minutes on 2 cores): the default suite's form. Without, the
# whole build from source, as a user's pip runs it (label slow).
set -euo pipefail
src=$1
work=$2
if [[ -n "${3:-}" ]]; then export TVK_PREBUILT=$3; fi
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# A copy of the sources, so the build leaves nothing in the checkout (setuptools writes build/
# and *.egg-info beside setup.py).
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | (mkdir -p "$work/src" && tar -C "$work/src" -xf -)
"$work/venv/bin/pip" install --no-index --no-build-isolation "$work/src" >"$work/pip.log" 2>&1 || { tail -40 "$work/pip.log"; exit 1; }
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
