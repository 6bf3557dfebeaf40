#!/usr/bin/env python3
"""Every torchvision classifier, and the mobile segmentation models, through tvk, as a new user
would try them: random weights (batch norms with random statistics), torch.jit.script +
torch.jit.save, then `tvk run` on the CPU and on Vulkan, and `tvk optimize` + `tvk run`, each
output compared with torch's (a segmentation model's "out"). Prints a markdown table
(docs/models.md).

    scripts/check_classifiers.py --tvk build/tvk [--models a,b] [--workdir DIR] [--timeout S]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision

# torchvision 0.14's classifiers, one per family member size that matters; 299 for inception.
MODELS = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s", "googlenet",
    "inception_v3", "maxvit_t", "mnasnet0_5", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small",
    "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50", "resnext50_32x4d", "shufflenet_v2_x0_5",
    "squeezenet1_1", "swin_t", "vgg11", "vit_b_16", "wide_resnet50_2",
    "lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50",
]
SEGMENTATION = ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50")


def build(name):
    kwargs = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}
    if name in SEGMENTATION:
        fn = getattr(torchvision.models.segmentation, name, None)
        kwargs = {"weights": None, "weights_backbone": None}
    else:
        fn = getattr(torchvision.models, name, None)
    if fn is None:
        return None
    model = fn(**kwargs).eval()
    # Zero-initialised layers (vit_b_16's head) would make every output 0 and hide any error,
    # and fresh batch norms are identities that would hide a wrong fold.
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2, generator=g)
                m.running_var.uniform_(0.5, 1.5, generator=g)
                m.weight.uniform_(0.5, 1.5, generator=g)
                m.bias.uniform_(-0.2, 0.2, generator=g)
        for m in model.modules():
            if isinstance(m, torch.nn.Linear) and not m.weight.any():
                m.weight.normal_(0, 0.02)
                if m.bias is not None:
                    m.bias.uniform_(-0.1, 0.1)
    return model


def first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict):
        return first_tensor(out["out"])
    return first_tensor(out[0])


def run_tvk(tvk, model, x_path, out_path, device, timeout):
    start = time.time()
    r = subprocess.run([tvk, "run", model, "--input", x_path, "--output", out_path, "--device", device],
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode, 0
    return np.load(out_path), "", time.time() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--workdir", default="/tmp/tvk_classifiers")
    p.add_argument("--timeout", type=int, default=900)
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    print("| model | CPU | Vulkan | optimized, Vulkan | max rel. error (CPU / Vulkan / optimized) |")
    print("|---|---|---|---|---|")
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = build(name)
        if model is None:
            print("| %s | - | - | - | not in torchvision %s |" % (name, torchvision.__version__))
            continue
        size = 299 if name == "inception_v3" else 224
        x = torch.rand(1, 3, size, size, generator=torch.Generator().manual_seed(1))
        base = os.path.join(args.workdir, name)
        try:
            scripted = torch.jit.script(model)
        except Exception as e:  # noqa: BLE001 - report whatever torch says
            print("| %s | - | - | - | torch.jit.script fails: %s |" % (name, str(e).splitlines()[0][:80]))
            continue
        torch.jit.save(scripted, base + ".pt")
        np.save(base + "_x.npy", x.numpy())
        with torch.no_grad():
            expected = first_tensor(scripted(x)).numpy()
        scale = np.abs(expected).max()
        cells, errors, notes = [], [], []
        for device, model_path in (("cpu", base + ".pt"), ("vulkan", base + ".pt"), ("vulkan", base + "-vk.pt")):
            if model_path.endswith("-vk.pt"):
                r = subprocess.run([args.tvk, "optimize", base + ".pt", "-o", model_path], capture_output=True,
                                   text=True, timeout=args.timeout)
                if r.returncode != 0:
                    cells.append("no")
                    errors.append("-")
                    notes.append("optimize: " + r.stderr.strip().splitlines()[-1])
                    continue
            try:
                got, why, _ = run_tvk(args.tvk, model_path, base + "_x.npy", base + "_y.npy", device, args.timeout)
            except subprocess.TimeoutExpired:
                got, why = None, "timed out after %d s" % args.timeout
            if got is None:
                cells.append("no")
                errors.append("-")
                notes.append(why)
                continue
            err = float(np.abs(got - expected).max() / scale) if got.shape == expected.shape else float("inf")
            cells.append("yes" if err <= 1e-4 else "wrong")
            errors.append("%.1e" % err)
        note = "; ".join(dict.fromkeys(n.replace("|", "/")[:140] for n in notes))
        print("| %s | %s | %s | %s | %s %s |" % (name, cells[0], cells[1], cells[2], " / ".join(errors),
                                                   ("(" + note + ")") if note else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
