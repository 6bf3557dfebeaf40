#!/usr/bin/env python3
"""Makes a Vulkan model file the way a Vulkan-enabled PyTorch writes it, on a machine whose
torch has no Vulkan: builds standin.cpp (PyTorch's Vulkan classes and
vulkan_prepack schemas, with stand-in kernels) against Debian's libtorch, loads it, and runs
torch's own optimize_for_mobile(backend="vulkan") and torch.jit.save on scripted models.
The expected outputs come from the original models.

usage: make_pytorch_vulkan_model.py OUT_DIR
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision
from torch.utils.mobile_optimizer import optimize_for_mobile

HERE = os.path.dirname(os.path.abspath(__file__))


def build_standin(out_dir):
    lib = os.path.join(out_dir, "libpytorch_vulkan_standin.so")
    src = os.path.join(HERE, "standin.cpp")
    if os.path.exists(lib) and os.path.getmtime(lib) > os.path.getmtime(src):
        return lib
    include = "/usr/include"
    cmd = ["g++", "-std=c++17", "-O0", "-shared", "-fPIC", "-w", src, "-o", lib + ".tmp",
           "-I" + include, "-I" + os.path.join(include, "torch/csrc/api/include"),
           "-ltorch", "-ltorch_cpu", "-lc10"]
    subprocess.check_call(cmd)
    os.replace(lib + ".tmp", lib)
    return lib


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.ops.load_library(build_standin(out_dir))
    torch.manual_seed(0)
    for name in ["mobilenet_v2", "squeezenet1_1"]:
        model = getattr(torchvision.models, name)().eval()
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
        x = torch.rand(1, 3, 224, 224)
        with torch.no_grad():
            expected = model(x)
        optimized = optimize_for_mobile(torch.jit.script(model), backend="vulkan")
        torch.jit.save(optimized, os.path.join(out_dir, name + "_pytorch_vulkan.pt"))
        np.save(os.path.join(out_dir, name + "_input.npy"), x.numpy())
        np.save(os.path.join(out_dir, name + "_expected0.npy"), expected.numpy())
        print(name, "forward code as PyTorch wrote it:\n", optimized.code[:400])
    # A recurrent layer as PyTorch's Vulkan rewrite packs it (GruPackedContext): batch-first, one
    # direction, with biases, as its kernels required. (torch 1.13's LSTM rewrite fails its own
    # internal assert on scripted nn.LSTM, so no LstmPackedContext file comes from it; the op
    # tests read that state's form.)
    model = Sequence().eval()
    x = torch.rand(2, 5, 8, generator=torch.Generator().manual_seed(3)) * 2 - 1
    with torch.no_grad():
        expected = model(x)
    optimized = optimize_for_mobile(torch.jit.script(model), backend="vulkan")
    assert "run_gru_context" in optimized.code, optimized.code
    torch.jit.save(optimized, os.path.join(out_dir, "sequence_pytorch_vulkan.pt"))
    np.save(os.path.join(out_dir, "sequence_input.npy"), x.numpy())
    for i, e in enumerate(expected):
        np.save(os.path.join(out_dir, "sequence_expected%d.npy" % i), e.numpy())


class Sequence(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(8, 6, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(6, 3)

    def forward(self, x):
        z, h = self.gru(x)
        return self.head(z), h


if __name__ == "__main__":
    main()
