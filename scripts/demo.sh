#!/usr/bin/env bash
# Installs what is missing, builds tvk and runs its main job on the default Vulkan device.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install_deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

echo "== tvk info"
./build/tvk info
echo
echo "== tensor round trip and ops on the selected device"
./build/examples/quickstart
