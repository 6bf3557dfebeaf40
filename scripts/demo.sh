#!/usr/bin/env bash
# The seed's workflow on the default Vulkan device, twice:
#  1. a real model: a small CNN trained here on the handwritten digits scikit-learn bundles, taken
#     through torch.jit.script + save, tvk check, tvk optimize --backend vulkan, tvk classify on the
#     held-out images (accuracy on Vulkan equal to torch's) and tvk bench;
#  2. torchvision's mobilenet_v2 (random weights: none can be downloaded here), checked,
#     optimized, run and compared with PyTorch's output, and benchmarked.
# It first installs what is missing and builds tvk.
set -euo pipefail
cd "$(dirname "$0")/.."
tvk=./build/tvk
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

./scripts/install_deps.sh test
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

step "tvk info: the build switches and the Vulkan device tvk will use"
$tvk info
step "tensors: round trip and ops on the selected device (examples/quickstart.cpp)"
./build/examples/quickstart

# ---- 1. a model trained on real data
work=build/demo
digits=$work/digits
mkdir -p "$digits"
step "training a small CNN on scikit-learn's 8x8 handwritten digits with torch (CPU), saving it scripted"
/usr/bin/python3 examples/digits/digits.py train "$digits"
step "tvk check: does every op of digits.pt run on Vulkan?"
$tvk check "$digits/digits.pt" --input-shape 1,1,8,8
step "tvk optimize --backend vulkan: fold batch norms, pack weights, fuse ReLUs, add CPU<->GPU transfers"
$tvk optimize "$digits/digits.pt" -o "$digits/digits-vulkan.pt" --backend vulkan | grep -Ev '^    '
step "tvk classify: the 360 held-out digits on Vulkan, compared with torch"
$tvk classify "$digits"/test/*.png --model "$digits/digits-vulkan.pt" --labels "$digits/labels.txt" \
  --channels 1 --size 8 --resize 8 --topk 3 --device vulkan --json >"$digits/tvk.json"
/usr/bin/python3 examples/digits/digits.py report "$digits" "$digits/tvk.json"
step "tvk bench: digits-vulkan.pt, one image per inference"
$tvk bench "$digits/digits-vulkan.pt" --input-shape 1,1,8,8 --iters 100

# ---- 2. mobilenet_v2, as in the seed's tutorial
step "model preparation with PyTorch: $work/mobilenet2.pt (torchvision mobilenet_v2, random weights)"
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np, torch, torchvision
out = sys.argv[1]
torch.manual_seed(0)
model = torchvision.models.mobilenet_v2().eval()   # no pretrained weights can be downloaded here
with torch.no_grad():  # non-trivial batch-norm statistics, as a trained model has
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2); m.running_var.uniform_(0.5, 1.5)
            m.weight.uniform_(0.5, 1.5); m.bias.uniform_(-0.2, 0.2)
script_model = torch.jit.script(model)
torch.jit.save(script_model, out + "/mobilenet2.pt")
x = torch.rand(1, 3, 224, 224)
np.save(out + "/x.npy", x.numpy())
with torch.no_grad():
    np.save(out + "/y_torch.npy", model(x).numpy())
print("torch", torch.__version__, "saved mobilenet2.pt, x.npy and torch's output y_torch.npy")
PY
step "tvk check: does every op of mobilenet2.pt run on Vulkan?"
$tvk check "$work/mobilenet2.pt"
step "tvk optimize --backend vulkan"
$tvk optimize "$work/mobilenet2.pt" -o "$work/mobilenet2-vulkan.pt" --backend vulkan
step "tvk run mobilenet2-vulkan.pt (CPU input in, CPU output out, computed on Vulkan)"
$tvk run "$work/mobilenet2-vulkan.pt" --device vulkan --input "$work/x.npy" --output "$work/y_tvk.npy"
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(d + "/y_tvk.npy"), np.load(d + "/y_torch.npy")
rel = float(np.abs(a - b).max() / np.abs(b).max())
print("output", a.shape, "top-5 classes tvk", np.argsort(-a[0])[:5].tolist(), "torch", np.argsort(-b[0])[:5].tolist())
print("max |tvk - torch| / max |torch| = %.2e" % rel)
sys.exit(0 if rel <= 1e-4 else 1)
PY
step "tvk bench: mobilenet2-vulkan.pt, one 224x224 image per inference"
$tvk bench "$work/mobilenet2-vulkan.pt" --iters 10 --warmup 2
echo
echo "demo: the digits model classifies as well on Vulkan as in torch, and mobilenet2-vulkan.pt on Vulkan matches PyTorch"
