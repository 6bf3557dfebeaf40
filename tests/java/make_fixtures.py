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
print("java fixtures in", out)
