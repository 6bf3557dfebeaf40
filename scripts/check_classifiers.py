#!/usr/bin/env python3
"""Every torchvision classifier, and the mobile segmentation models, through tvk, as a new user
would try them: random weights (batch norms with random statistics), torch.jit.script and
torch.jit.trace + torch.jit.save, then `tvk run` on the CPU and on Vulkan, and `tvk optimize` +
`tvk run`, each output compared with torch's (a segmentation model's "out"); the optimized
scripted model again at a second input size where the model allows one, and its latency on
Vulkan from `tvk bench`. Prints a markdown table (docs/models.md); exits non-zero when any
check fails.

    scripts/check_classifiers.py --tvk build/tvk [--models a,b] [--modes script,trace]
        [--workdir DIR] [--timeout S] [--bench-iters N]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision

# torchvision 0.14's classifiers as issue 10 lists them (inception_v3 at 299), and the mobile
# segmentation models.
MODELS = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s", "googlenet",
    "inception_v3", "maxvit_t", "mnasnet0_5", "mnasnet1_0", "mobilenet_v2", "mobilenet_v3_large",
    "mobilenet_v3_small", "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50", "resnext50_32x4d",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "squeezenet1_0", "squeezenet1_1", "swin_t", "vgg11", "vgg11_bn",
    "vit_b_16", "wide_resnet50_2",
    "lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50",
]
SEGMENTATION = ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50")
TOLERANCE = 1e-4  # max |tvk - torch| / max |torch|

# The size each model is checked at, and a second one it also accepts (None: the model fixes its
# input size: vit_b_16's position embeddings, maxvit_t's grid of 7x7 partitions).
FIRST_SIZE = {"inception_v3": 299}
SECOND_SIZE = {"vit_b_16": None, "maxvit_t": None, "inception_v3": 342, "alexnet": 256}


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


def last_line(text, fallback):
    text = text.strip()
    return text.splitlines()[-1] if text else fallback


def run_tvk(tvk, model, x_path, out_path, device, timeout):
    r = subprocess.run([tvk, "run", model, "--input", x_path, "--output", out_path, "--device", device],
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        return None, last_line(r.stderr, "exit %d" % r.returncode)
    return np.load(out_path), ""


def bench_ms(tvk, model, size, iters, timeout):
    """Median latency (ms) of `tvk bench` on Vulkan, or None."""
    r = subprocess.run([tvk, "bench", model, "--iters", str(iters), "--warmup", "1", "--input-shape",
                        "1,3,%d,%d" % (size, size), "--json"], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        return None
    try:
        return float(json.loads(r.stdout)["median_ms"])
    except (ValueError, KeyError):
        return None


class Checker:
    def __init__(self, args):
        self.args = args
        self.failed = False

    def compare(self, model_path, x, expected, base, device):
        """'yes' / 'wrong' / 'no', the error, and why it failed."""
        np.save(base + "_x.npy", x.numpy())
        try:
            got, why = run_tvk(self.args.tvk, model_path, base + "_x.npy", base + "_y.npy", device, self.args.timeout)
        except subprocess.TimeoutExpired:
            got, why = None, "timed out after %d s" % self.args.timeout
        if got is None:
            return "no", "-", why
        scale = max(float(np.abs(expected).max()), 1e-30)
        err = float(np.abs(got - expected).max() / scale) if got.shape == expected.shape else float("inf")
        return ("yes" if err <= TOLERANCE else "wrong"), "%.1e" % err, ""

    def optimize(self, model_path, out_path):
        r = subprocess.run([self.args.tvk, "optimize", model_path, "-o", out_path], capture_output=True, text=True,
                           timeout=self.args.timeout)
        return "" if r.returncode == 0 else "optimize: " + last_line(r.stderr, "exit %d" % r.returncode)

    def check(self, name, mode, model, size):
        """One row's cells for a scripted or traced model: CPU, Vulkan, optimized Vulkan."""
        base = os.path.join(self.args.workdir, "%s_%s" % (name, mode))
        x = torch.rand(1, 3, size, size, generator=torch.Generator().manual_seed(1))
        try:
            with torch.no_grad():
                if mode == "script":
                    saved = torch.jit.script(model)
                else:
                    saved = torch.jit.trace(model, x, strict=False, check_trace=False)
        except Exception as e:  # noqa: BLE001 - report whatever torch says
            return None, "torch.jit.%s fails: %s" % (mode, str(e).splitlines()[0][:80])
        torch.jit.save(saved, base + ".pt")
        with torch.no_grad():
            expected = first_tensor(saved(x)).numpy()
        cells, errors, notes = [], [], []
        for device, path in (("cpu", base + ".pt"), ("vulkan", base + ".pt"), ("vulkan", base + "-vk.pt")):
            if path.endswith("-vk.pt"):
                why = self.optimize(base + ".pt", path)
                if why:
                    cells.append("no"), errors.append("-"), notes.append(why)
                    continue
            cell, err, why = self.compare(path, x, expected, base, device)
            cells.append(cell), errors.append(err)
            if why:
                notes.append(why)
        if any(c != "yes" for c in cells):
            self.failed = True
        return (cells, errors, notes, saved), ""

    def second_size(self, name, saved, size):
        """The optimized scripted model at another input size: 'yes (160)' or what failed."""
        base = os.path.join(self.args.workdir, "%s_size%d" % (name, size))
        x = torch.rand(1, 3, size, size, generator=torch.Generator().manual_seed(3))
        with torch.no_grad():
            expected = first_tensor(saved(x)).numpy()
        model = os.path.join(self.args.workdir, "%s_script-vk.pt" % name)
        cell, err, why = self.compare(model, x, expected, base, "vulkan")
        if cell != "yes":
            self.failed = True
        return "%s at %d (%s)%s" % (cell, size, err, (": " + why) if why else "")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--modes", default="script,trace", help="script, trace or both")
    p.add_argument("--workdir", default="/tmp/tvk_classifiers")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--bench-iters", type=int, default=3, help="0: no latency column")
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    modes = args.modes.split(",")
    checker = Checker(args)
    head = ["model"]
    for mode in modes:
        head += ["%s: CPU / Vulkan / optimized" % {"script": "scripted", "trace": "traced"}[mode], "max rel. error"]
    head += ["second size (scripted, optimized, Vulkan)", "Vulkan ms (optimized, batch 1)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = build(name)
        if model is None:
            print("| %s | not in torchvision %s |" % (name, torchvision.__version__))
            continue
        size = FIRST_SIZE.get(name, 224)
        row, notes, scripted = [name], [], None
        for mode in modes:
            result, why = checker.check(name, mode, model, size)
            if result is None:
                row += ["-", "-"]
                notes.append(why)
                if mode == "script":
                    scripted = None
                continue
            cells, errors, failures, saved = result
            row += [" / ".join(cells), " / ".join(errors)]
            notes += failures
            if mode == "script" and cells[2] == "yes":
                scripted = saved
        second = SECOND_SIZE.get(name, 160)
        if scripted is None or "script" not in modes:
            row.append("-")
        elif second is None:
            row.append("fixed by the model")
        else:
            row.append(checker.second_size(name, scripted, second))
        ms = None
        if args.bench_iters > 0 and scripted is not None:
            ms = bench_ms(args.tvk, os.path.join(args.workdir, "%s_script-vk.pt" % name), size, args.bench_iters,
                          args.timeout)
        row.append("%.0f" % ms if ms is not None else "-")
        note = "; ".join(dict.fromkeys(n.replace("|", "/")[:140] for n in notes))
        print("| " + " | ".join(row) + " |" + ((" " + note) if note else ""))
        sys.stdout.flush()
    return 1 if checker.failed else 0


if __name__ == "__main__":
    sys.exit(main())
