#!/usr/bin/env bash
# Installs the Debian 12 packages tvk needs to build and test, only those that are missing.
# Usage: scripts/install_deps.sh [build|test|arm64]
#   test adds PyTorch (the tests' oracle) and what the Python, Java and CLI tests use; arm64 adds
#   the cross compiler, qemu-user and arm64 multiarch packages for scripts/test_arm64.sh.
set -euo pipefail

mode=${1:-test}
packages=(
  build-essential cmake pkg-config zlib1g-dev
  libvulkan-dev libvulkan-volk-dev glslc libshaderc-dev glslang-dev spirv-tools
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libgtest-dev libgmock-dev
  python3-dev pybind11-dev
  libstb-dev nlohmann-json3-dev
)
if [[ "$mode" == test ]]; then
  # libtorch-dev: the stand-in Vulkan classes that let torch write a Vulkan model (tests/models/pytorch_vulkan)
  packages+=(python3 python3-numpy python3-torch python3-torchvision libtorch-dev)
  # the Python package's tests: pytest, and `pip install .` into a venv (offline)
  packages+=(python3-pytest python3-venv python3-pip python3-setuptools python3-wheel)
  # the demo trains a small CNN on the handwritten digits scikit-learn bundles; tests make PNGs with PIL
  packages+=(python3-sklearn python3-pil)
  # the Java API (java/) and its JUnit tests; Maven and the plugins java/pom.xml pins, which
  # Debian packages, so that the POM builds offline
  packages+=(default-jdk-headless junit4 maven libmaven-compiler-plugin-java libmaven-jar-plugin-java
             libmaven-resources-plugin-java libsurefire-java)
fi

if [[ "$mode" == arm64 ]]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "adding the arm64 architecture to dpkg"
    if [[ $(id -u) -ne 0 ]]; then sudo dpkg --add-architecture arm64; else dpkg --add-architecture arm64; fi
  fi
  packages=(build-essential cmake glslc libvulkan-volk-dev libstb-dev nlohmann-json3-dev python3 python3-numpy python3-torch
            g++-aarch64-linux-gnu qemu-user-static
            libvulkan-dev:arm64 mesa-vulkan-drivers:arm64 vulkan-validationlayers:arm64 zlib1g-dev:arm64
            libgtest-dev:arm64 libgmock-dev:arm64)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
