#!/usr/bin/env python3
"""Tuning against the built-in rules, on the same device in one run: for each model, precision
and batch, `tvk bench --tuning off` (the rules' methods), then `tvk tune` (fills the device's
tuning table in a fresh cache directory), then `tvk bench --tuning cached` (the tuned methods),
and the two benches again in the other order, so drift shows. Prints one line per case with
median and GPU ms of each, and how many layer signatures tuning chose a method for that the
rules would not have. Models are torchvision's with random weights, optimized by `tvk optimize`.

usage: tuning_ab.py --tvk build/tvk [--models resnet50,efficientnet_b0] [--batch 1,32]
                    [--precision fp32,fp16] [--iters 100] [--workdir DIR] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from compare import ensure_models  # torchvision model, scripted and `tvk optimize`d, in the workdir


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run_json(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-2000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--models", default="resnet50,efficientnet_b0,convnext_tiny,mobilenet_v2")
    p.add_argument("--batch", default="1")
    p.add_argument("--precision", default="fp32,fp16")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--workdir", default="/tmp/tvk-tuning-ab")
    p.add_argument("--json")
    a = p.parse_args()
    rows = []
    for name in a.models.split(","):
        model = ensure_models(a.tvk, a.workdir, name)
        for batch in [int(b) for b in a.batch.split(",")]:
            for precision in a.precision.split(","):
                cache = tempfile.mkdtemp(prefix="tvk-tuning-")
                env = dict(os.environ, TVK_CACHE_DIR=cache)
                shape = "%d,3,224,224" % batch
                common = ["--input-shape", shape, "--precision", precision]
                bench = [a.tvk, "bench", model, "--iters", str(a.iters), "--warmup", "10", "--json", "--profile"]
                tune = run_json([a.tvk, "tune", model, "--json"] + common, env)
                # The rules' choices differ from the table's where a tuned method is not the
                # reference (the first candidate timed, which is the rules' choice).
                changed = [t for t in tune["tuned"] if not t["detail"].startswith(t["method"] + " ")]
                runs = {"rules": [], "tuned": []}
                for order in (("rules", "tuned"), ("tuned", "rules")):
                    for which in order:
                        mode = "off" if which == "rules" else "cached"
                        runs[which].append(run_json(bench + common + ["--tuning", mode], env))
                row = {"model": name, "batch": batch, "precision": precision, "signatures": len(tune["tuned"]),
                       "changed": [{"layer": t["layer"], "method": t["method"], "detail": t["detail"]} for t in changed],
                       "tuning_run_s": tune["tuning_run_s"]}
                for which in runs:
                    row[which] = {"median_ms": [r["median_ms"] for r in runs[which]],
                                  "gpu_ms": [r["gpu_ms"] for r in runs[which]]}
                rows.append(row)
                print("%-16s b%-3d %s  rules median %s gpu %s | tuned median %s gpu %s | %d of %d signatures "
                      "changed, tuning run %.1f s" % (
                          name, batch, precision,
                          "/".join("%.3f" % v for v in row["rules"]["median_ms"]),
                          "/".join("%.3f" % v for v in row["rules"]["gpu_ms"]),
                          "/".join("%.3f" % v for v in row["tuned"]["median_ms"]),
                          "/".join("%.3f" % v for v in row["tuned"]["gpu_ms"]),
                          len(changed), len(tune["tuned"]), tune["tuning_run_s"]), flush=True)
                for t in changed:
                    print("    %s -> %s (%s)" % (t["layer"], t["method"], t["detail"]), flush=True)
                rejected = sorted({part.strip() for t in tune["tuned"] for part in t["detail"].split(", ")
                                   if " rejected: " in part})
                for r in rejected[:8]:
                    print("    rejected: %s" % r[:300], flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
