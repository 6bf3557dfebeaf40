#!/usr/bin/env python3
"""Two builds of tvk on the same models and device, in one run: `tvk bench` of build A, then B,
then A and B again (so drift shows), for each model, batch and precision. Prints one line per
case with each build's median and GPU ms, dispatches and peak memory, and B's speed-up over A
(A's better median / B's better median). Models are torchvision's with random weights, scripted
and optimized by build B's `tvk optimize` (compare.py's ensure_models).

usage: ab.py --a OLD_DIR --b NEW_DIR [--models efficientnet_b0,resnet50] [--batch 1,32]
             [--precision fp32,fp16] [--iters 50] [--workdir DIR] [--json out.json]
Each DIR holds `tvk` and `libtvk.so`.
"""
import argparse
import json
import os
import subprocess
import sys

from compare import ensure_models


def bench(build, model, batch, precision, iters):
    env = dict(os.environ, LD_LIBRARY_PATH=build)
    cmd = [os.path.join(build, "tvk"), "bench", model, "--input-shape", "%d,3,224,224" % batch, "--iters", str(iters),
           "--warmup", "5", "--json", "--profile", "--precision", precision]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-2000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--a", required=True)
    p.add_argument("--b", required=True)
    p.add_argument("--models", default="mobilenet_v2,resnet18,squeezenet1_1")
    p.add_argument("--batch", default="1")
    p.add_argument("--precision", default="fp32")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--workdir", default="/tmp/tvk-ab")
    p.add_argument("--json")
    args = p.parse_args()
    rows = []
    for name in args.models.split(","):
        model = ensure_models(os.path.join(args.b, "tvk"), args.workdir, name)
        for batch in [int(b) for b in args.batch.split(",")]:
            for prec in args.precision.split(","):
                runs = {"a": [], "b": []}
                for side in ["a", "b", "a", "b"]:
                    runs[side].append(bench(getattr(args, side), model, batch, prec, args.iters))
                best = {s: min(r["median_ms"] for r in runs[s]) for s in runs}
                gpu = {s: min(r["gpu_ms"] for r in runs[s]) for s in runs}
                row = {"model": name, "batch": batch, "precision": prec, "a": runs["a"], "b": runs["b"]}
                rows.append(row)
                print("%-20s b%-3d %s  A %.3f ms (GPU %.3f, %d disp, %.0f MiB)  B %.3f ms (GPU %.3f, %d disp, "
                      "%.0f MiB)  B/A speed-up %.2fx" %
                      (name, batch, prec, best["a"], gpu["a"], runs["a"][0]["dispatches_per_inference"],
                       runs["a"][0]["peak_device_bytes"] / 2**20, best["b"], gpu["b"],
                       runs["b"][0]["dispatches_per_inference"], runs["b"][0]["peak_device_bytes"] / 2**20,
                       best["a"] / best["b"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
