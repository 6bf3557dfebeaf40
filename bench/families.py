#!/usr/bin/env python3
"""The model families of issue 48 (tests/models/families.py: LSTM, GRU/RNN cells, Conv1d audio,
super-resolution, style transfer, UNet) through tvk against torch in one run: for each, tvk's
error against torch's float32 output as loaded and after `tvk optimize` (scripted and traced),
and the median latency of `tvk bench` (CPU input to CPU output) beside torch on the CPU and, where
CUDA is present, CUDA eager at the same precision (fp32, TF32 off). With --fixtures DIR it also
writes each family's files as the model tests read them (tests/models/torch2 for torch 2.x).

usage: families.py --tvk build/tvk [--workdir DIR] [--fixtures DIR] [--iters N] [--json out.json] [--only a,b]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from families import FAMILIES, outputs  # noqa: E402


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def relative(got, expected):
    return float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))


def tvk_outputs(tvk, path, x_path, n, workdir, device="vulkan"):
    outs = [os.path.join(workdir, "out%d.npy" % i) for i in range(n)]
    cmd = [tvk, "run", path, "--input", x_path, "--device", device]
    for o in outs:
        cmd += ["--output", o]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
    return [np.load(o) for o in outs], ""


def time_torch(fn, iters, sync=None):
    times = []
    with torch.no_grad():
        for i in range(iters + 5):
            start = time.perf_counter()
            fn()
            if sync:
                sync()
            if i >= 5:
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--workdir", default=None)
    p.add_argument("--fixtures", default=None)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--json", default=None)
    p.add_argument("--only", default=None, help="comma-separated family names (default: all)")
    args = p.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="tvk-families-")
    os.makedirs(workdir, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for name, make in FAMILIES.items():
        if args.only and name not in args.only.split(","):
            continue
        torch.manual_seed(0)
        model, x = make()
        expected = [e.numpy() for e in outputs(model, x)]
        x_path = os.path.join(workdir, name + "_input.npy")
        np.save(x_path, x.numpy())
        row = {"model": name, "input": list(x.shape)}
        files = {"script": os.path.join(workdir, name + "_script.pt"), "trace": os.path.join(workdir, name + "_trace.pt")}
        torch.jit.save(torch.jit.script(model), files["script"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.jit.save(torch.jit.trace(model, x, check_trace=False), files["trace"])
        if args.fixtures:
            os.makedirs(args.fixtures, exist_ok=True)
            np.save(os.path.join(args.fixtures, name + "_input.npy"), x.numpy())
            for i, e in enumerate(expected):
                np.save(os.path.join(args.fixtures, "%s_expected%d.npy" % (name, i)), e)
            for mode, path in files.items():
                with open(path, "rb") as src, open(os.path.join(args.fixtures, "%s_%s.pt" % (name, mode)), "wb") as dst:
                    dst.write(src.read())
        for mode, path in files.items():
            optimized = os.path.join(workdir, "%s_%s-vulkan.pt" % (name, mode))
            r = subprocess.run([args.tvk, "optimize", path, "-o", optimized], capture_output=True, text=True)
            for form, f in (("loaded", path), ("optimized", optimized)):
                key = "%s_%s" % (mode, form)
                if form == "optimized" and r.returncode != 0:
                    row[key] = "optimize failed: " + r.stderr.strip().splitlines()[-1]
                    continue
                got, err = tvk_outputs(args.tvk, f, x_path, len(expected), workdir)
                row[key] = err if got is None else max(relative(g, e) for g, e in zip(got, expected))
        # Speed: the scripted model, optimized, against torch at float32.
        bench = subprocess.run([args.tvk, "bench", os.path.join(workdir, name + "_script-vulkan.pt"), "--input", x_path,
                                "--iters", str(args.iters), "--json", "--profile"], capture_output=True, text=True)
        if bench.returncode == 0:
            b = json.loads(bench.stdout.strip().splitlines()[-1])
            row["tvk_median_ms"] = b.get("median_ms")
            row["tvk_gpu_ms"] = b.get("gpu_ms")
            row["dispatches"] = b.get("dispatches_per_inference")
        else:
            row["tvk_median_ms"] = "bench failed: " + (bench.stderr.strip().splitlines() or ["?"])[-1]
        row["torch_cpu_ms"] = time_torch(lambda: model(x), args.iters)
        if torch.cuda.is_available():
            cuda_model = model.to("cuda")
            try:
                row["torch_cuda_eager_ms"] = time_torch(lambda: [o.cpu() for o in outputs(cuda_model, x.to("cuda"))],
                                                        args.iters, torch.cuda.synchronize)
            except RuntimeError as e:  # a model that makes CPU tensors itself (recurrent's zeros)
                row["torch_cuda_eager_ms"] = "fails on CUDA: " + str(e).splitlines()[0][:60]
            model.to("cpu")
        log(json.dumps(row))
        rows.append(row)
    print("| model | input | script loaded | script optimized | trace loaded | trace optimized | tvk median ms | "
          "tvk GPU ms | dispatches | torch CPU ms | torch CUDA eager ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def cell(v):
        return ("%.1e" % v) if isinstance(v, float) and v < 1e-2 else ("%.3f" % v) if isinstance(v, float) else str(v)

    for r in rows:
        print("| " + " | ".join(cell(r.get(k, "-")) for k in ("model", "input", "script_loaded", "script_optimized",
                                                              "trace_loaded", "trace_optimized", "tvk_median_ms",
                                                              "tvk_gpu_ms", "dispatches", "torch_cpu_ms",
                                                              "torch_cuda_eager_ms")) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
