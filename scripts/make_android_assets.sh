#!/usr/bin/env bash
# Makes the Android test app's assets (android/app/src/main/assets, not committed): torchvision's
# mobilenet_v2 (random weights: none can be downloaded here; put a trained model's
# `tvk optimize` output in its place for real classes), optimized for Vulkan by the tvk CLI, the
# ImageNet-1k class names, and a test image.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=android/app/src/main/assets
mkdir -p "$assets"
[[ -x build/tvk ]] || { echo "make_android_assets.sh: build tvk first (cmake --build build)" >&2; exit 1; }
/usr/bin/python3 - "$assets" <<'PY'
import sys, numpy as np, torch, torchvision
from PIL import Image
from torchvision.models._meta import _IMAGENET_CATEGORIES
out = sys.argv[1]
torch.manual_seed(0)
torch.jit.save(torch.jit.script(torchvision.models.mobilenet_v2().eval()), out + "/mobilenet2.pt")
with open(out + "/imagenet_classes.txt", "w") as f:
    f.write("\n".join(_IMAGENET_CATEGORIES) + "\n")
rng = np.random.default_rng(0)
Image.fromarray(rng.integers(0, 256, size=(256, 256, 3), dtype=np.uint8)).save(out + "/image.jpg")
PY
./build/tvk optimize "$assets/mobilenet2.pt" -o "$assets/mobilenet2-vulkan.pt" >/dev/null
rm "$assets/mobilenet2.pt"
echo "assets in $assets: mobilenet2-vulkan.pt, imagenet_classes.txt, image.jpg"
