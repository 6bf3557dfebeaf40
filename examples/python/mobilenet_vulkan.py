#!/usr/bin/env python3
"""The seed's Python workflow with tvk: torchvision mobilenet_v2 -> TorchScript -> optimized for
Vulkan -> saved -> loaded -> run on the GPU, compared with torch on the CPU.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/mobilenet_vulkan.py
"""
import os
import tempfile

import torch
import torchvision

import tvk
from tvk.utils.mobile_optimizer import optimize_for_mobile

print("Vulkan available:", tvk.is_vulkan_available())
model = torchvision.models.mobilenet_v2().eval()  # random weights: nothing is downloaded
script_model = torch.jit.script(model)
folder = tempfile.mkdtemp()
torch.jit.save(script_model, os.path.join(folder, "mobilenet_v2.pt"))

# torch.utils.mobile_optimizer.optimize_for_mobile(script_model, backend="vulkan"), done by tvk
module = tvk.jit.load(os.path.join(folder, "mobilenet_v2.pt"))
optimized = optimize_for_mobile(module, backend="vulkan")
optimized.save(os.path.join(folder, "mobilenet2-vulkan.pt"))

vulkan_model = tvk.jit.load(os.path.join(folder, "mobilenet2-vulkan.pt"))
x = torch.rand(1, 3, 224, 224)
y = vulkan_model(x)  # a CPU torch tensor in, a CPU torch tensor out; the GPU work in between
with torch.no_grad():
    expected = model(x)
print("top-5 classes:", y.topk(5).indices.tolist()[0])
error = float((y - expected).abs().max() / expected.abs().max())
print("max |tvk - torch| / max |torch|:", error)
if error > 1e-4:
    raise SystemExit("tvk and torch disagree")

# Tensors move as in the seed: .vulkan(), .cpu(), .to("vulkan"); ops are functions.
t = tvk.from_dlpack(x).vulkan()
print(tvk.relu(t).cpu().shape, t.device)
