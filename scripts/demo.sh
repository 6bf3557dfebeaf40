#!/usr/bin/env bash
# The seed's workflow on the default Vulkan device: installs what is missing, builds tvk, makes
# mobilenet2.pt with PyTorch (torch.jit.script + torch.jit.save, random weights), checks that
# every op runs on Vulkan, optimizes it for Vulkan (mobilenet2-vulkan.pt), runs it, and compares
# the result with PyTorch's.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install_deps.sh test
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

echo "== tvk info"
./build/tvk info
echo
echo "== tensors: round trip and ops on the selected device"
./build/examples/quickstart

work=build/demo
mkdir -p "$work"
echo
echo "== model preparation with PyTorch: $work/mobilenet2.pt"
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

echo
echo "== tvk check: does every op of mobilenet2.pt run on Vulkan?"
./build/tvk check "$work/mobilenet2.pt"
echo
echo "== tvk optimize --backend vulkan"
./build/tvk optimize "$work/mobilenet2.pt" -o "$work/mobilenet2-vulkan.pt" --backend vulkan
echo
echo "== tvk run mobilenet2-vulkan.pt (CPU input in, CPU output out, computed on Vulkan)"
./build/tvk run "$work/mobilenet2-vulkan.pt" --device vulkan --input "$work/x.npy" --output "$work/y_tvk.npy"
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(d + "/y_tvk.npy"), np.load(d + "/y_torch.npy")
rel = float(np.abs(a - b).max() / np.abs(b).max())
print("output", a.shape, "top-5 classes tvk", np.argsort(-a[0])[:5].tolist(), "torch", np.argsort(-b[0])[:5].tolist())
print("max |tvk - torch| / max |torch| = %.2e" % rel)
sys.exit(0 if rel <= 1e-4 else 1)
PY
echo "demo: mobilenet2-vulkan.pt on Vulkan matches PyTorch"
