#!/usr/bin/env python3
"""Fixtures for the Java tests (java/src/test): made with Debian's torch and the tvk CLI.
Usage: make_fixtures.py OUT_DIR TVK_CLI
  mobilenet2.pt, mobilenet2-vulkan.pt (tvk optimize), x.bin (the input, raw float32),
  y_torch.bin (torch's output), y_cpp.bin (the C++ API's output through `tvk run` on Vulkan),
  values.pt (a module whose methods take and return every kind of IValue, with two extra files)."""
import os, subprocess, sys
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torchvision

out, tvk = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
model = torchvision.models.mobilenet_v2().eval()
with torch.no_grad():
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2); m.running_var.uniform_(0.5, 1.5)
            m.weight.uniform_(0.5, 1.5); m.bias.uniform_(-0.2, 0.2)
torch.jit.save(torch.jit.script(model), f"{out}/mobilenet2.pt")
x = torch.rand(1, 3, 224, 224)
x.numpy().astype("<f4").tofile(f"{out}/x.bin")
np.save(f"{out}/x.npy", x.numpy())
with torch.no_grad():
    model(x).numpy().astype("<f4").tofile(f"{out}/y_torch.bin")
subprocess.check_call([tvk, "optimize", f"{out}/mobilenet2.pt", "-o", f"{out}/mobilenet2-vulkan.pt"], stdout=subprocess.DEVNULL)
subprocess.check_call([tvk, "run", f"{out}/mobilenet2-vulkan.pt", "--device", "vulkan", "--input", f"{out}/x.npy",
                       "--output", f"{out}/y_cpp.npy"])
np.load(f"{out}/y_cpp.npy").astype("<f4").tofile(f"{out}/y_cpp.bin")


class Values(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int, f: float, flag: bool, s: str, ts: List[torch.Tensor],
                d: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, int, float, bool, str, List[torch.Tensor],
                                                     Dict[str, torch.Tensor]]:
        return x * 2.0, n + 1, f * 2.0, not flag, s + "!", [t + 1.0 for t in ts], {k: v * 3.0 for k, v in d.items()}

    @torch.jit.export
    def ints(self, x: torch.Tensor) -> torch.Tensor:
        return x.unsqueeze(0)

    @torch.jit.export
    def mask(self, x: torch.Tensor) -> torch.Tensor:
        return x.unsqueeze(1)

    @torch.jit.export
    def long_keys(self, d: Dict[int, float]) -> Dict[int, float]:
        return {k * 10: v + 0.5 for k, v in d.items()}

    @torch.jit.export
    def maybe(self, x: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
        if x is None:
            return None
        return torch.relu(x)


# With extra files (torch.jit.save's _extra_files), one of them not ASCII, for Module.load's
# extraFiles.
torch.jit.save(torch.jit.script(Values()), f"{out}/values.pt",
               _extra_files={"meta.json": '{"labels": ["cat", "dog"]}', "note.txt": "caf\u00e9 \u2713"})


# Hostile code for the limits (issue 49): loops that run as long as they are told, and methods
# nesting 198 calls deep with expressions 200 deep in each, written into a scripted module's
# archive as code torch could have printed.
class Spin(torch.nn.Module):
    def forward(self, n: int) -> int:
        total = 0
        i = 0
        while i < n:
            j = 0
            while j < n:
                total += 1
                j += 1
            i += 1
        return total


torch.jit.save(torch.jit.script(Spin()), f"{out}/spin.pt")
# 4 MB of weights: past a 1 MiB device-memory limit, within 64 MiB (Limits.withMaxDeviceMemory).
torch.jit.save(torch.jit.script(torch.nn.Linear(1024, 1024).eval()), f"{out}/wide.pt")


class Deep(torch.nn.Module):
    def forward(self) -> int:
        return 0


def deep_calls(depth, nesting):
    code = "import torch\nclass Deep(Module):\n  __parameters__ = []\n  __buffers__ = []\n  training : bool\n"
    for i in range(depth):
        inner = "self.f%d(x)" % (i + 1) if i + 1 < depth else "x"
        for _ in range(nesting):
            inner = "(%s + 1)" % inner
        code += "  def f%d(self: __torch__.Deep, x: int) -> int:\n    return %s\n" % (i, inner)
    return code + "  def forward(self: __torch__.Deep) -> int:\n    return self.f0(0)\n"


import io, zipfile
buffer = io.BytesIO()
torch.jit.save(torch.jit.script(Deep()), buffer)
with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as src, zipfile.ZipFile(f"{out}/deep_calls.pt", "w") as dst:
    for info in src.infolist():
        data = src.read(info)
        if info.filename.endswith("code/__torch__.py"):
            data = deep_calls(198, 200).encode()
        elif info.filename.endswith(".debug_pkl"):
            continue
        dst.writestr(info, data)
print("java fixtures in", out)
