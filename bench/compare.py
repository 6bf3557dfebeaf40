#!/usr/bin/env python3
"""tvk against PyTorch on the same models, in one run: the peer is PyTorch on the CPU (with as
many threads as this machine has cores) and, where CUDA is present, PyTorch CUDA eager and
torch.compile(mode="reduce-overhead"), and CUDA eager again with TF32 off (cuDNN's default
runs fp32 convolutions in TF32), the peer of tvk's full-fp32 arithmetic. Every figure is CPU input in, CPU output out, after
warm-up, the median of --iters runs. tvk is timed by `tvk bench --json` on optimized models
(`tvk optimize`), which it makes in --workdir from torchvision models with random weights.

usage: compare.py --tvk build/tvk [--models mobilenet_v2,resnet18,squeezenet1_1] [--batch 1,32]
                  [--precision fp32,fp16]
                  [--iters N] [--warmup N] [--workdir DIR] [--json out.json] [--svg out.svg]
                  [--markdown out.md] [--no-compile] [--no-cpu]
       compare.py --plot-only out.json --svg out.svg     (redraw a run's chart)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torchvision


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def time_torch(fn, x, iters, warmup, sync=None):
    times = []
    with torch.no_grad():
        for i in range(warmup + iters):
            start = time.perf_counter()
            fn(x)
            if sync:
                sync()
            if i >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    return {"median_ms": statistics.median(times), "min_ms": min(times)}


def torch_peers(name, batch, iters, warmup, compile_too, precision="fp32", cpu_too=True):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    x = torch.rand(batch, 3, 224, 224)
    out = {}
    torch.set_num_threads(os.cpu_count())
    if precision == "fp16":
        # The fp16 peer: model.half() in channels_last, fp32 CPU input converted on the GPU and
        # the output returned as fp32, as tvk's --precision fp16 takes and gives them.
        if not torch.cuda.is_available():
            return out
        cuda = model.cuda().half().to(memory_format=torch.channels_last)
        sync = torch.cuda.synchronize
        run = lambda t: cuda(t.cuda().half().contiguous(memory_format=torch.channels_last)).float().cpu()
        out["torch_cuda_eager"] = time_torch(run, x, iters, warmup, sync)
        if compile_too:
            try:
                compiled = torch.compile(cuda, mode="reduce-overhead")
                run = lambda t: compiled(t.cuda().half().contiguous(memory_format=torch.channels_last)).float().cpu()
                out["torch_compile"] = time_torch(run, x, iters, max(warmup, 5), sync)
            except Exception as e:
                log("torch.compile failed for %s: %s" % (name, str(e).splitlines()[0][:200]))
        return out
    if cpu_too:
        out["torch_cpu"] = time_torch(model, x, max(3, iters // 4), 2)
    if torch.cuda.is_available():
        cuda = model.cuda()
        sync = torch.cuda.synchronize
        out["torch_cuda_eager"] = time_torch(lambda t: cuda(t.cuda()).cpu(), x, iters, warmup, sync)
        # cuDNN convolutions run in TF32 by default (10-bit mantissas); tvk's fp32 is full fp32,
        # so eager with TF32 off is the peer of the same precision.
        tf32 = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        try:
            out["torch_cuda_eager_fp32"] = time_torch(lambda t: cuda(t.cuda()).cpu(), x, iters, warmup, sync)
        finally:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = tf32
        if compile_too:
            try:
                compiled = torch.compile(cuda, mode="reduce-overhead")
                out["torch_compile"] = time_torch(lambda t: compiled(t.cuda()).cpu(), x, iters, max(warmup, 5), sync)
                xg = x.cuda()
                out["torch_compile_gpu_input"] = time_torch(lambda t: compiled(t), xg, iters, max(warmup, 5), sync)
            except Exception as e:  # an inductor that cannot build here: say so, keep going
                log("torch.compile failed for %s: %s" % (name, str(e).splitlines()[0][:200]))
    return out


def ensure_models(tvk, workdir, name):
    os.makedirs(workdir, exist_ok=True)
    plain = os.path.join(workdir, name + ".pt")
    optimized = os.path.join(workdir, name + "-vulkan.pt")
    if not os.path.exists(plain):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)().eval()
        torch.jit.save(torch.jit.script(model), plain)
    if not os.path.exists(optimized):
        subprocess.run([tvk, "optimize", plain, "-o", optimized], check=True, stdout=subprocess.DEVNULL)
    return optimized


def tvk_bench(tvk, model, batch, iters, warmup, extra_env=None, precision="fp32"):
    env = dict(os.environ, **(extra_env or {}))
    cmd = [tvk, "bench", model, "--input-shape", "%d,3,224,224" % batch, "--iters", str(iters),
           "--warmup", str(warmup), "--json", "--profile", "--precision", precision]
    r = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(r.stdout.strip().splitlines()[-1])


def svg_chart(rows, path):
    """A bar chart of median latency per model and runner (log scale), written by hand so the
    script needs nothing beyond torch."""
    import math
    runners = [k for k in ["tvk", "torch_cpu", "torch_cuda_eager", "torch_compile"] if any(k in r for r in rows)]
    colors = {"tvk": "#d62728", "torch_cpu": "#7f7f7f", "torch_cuda_eager": "#1f77b4", "torch_compile": "#2ca02c"}
    values = [r[k]["median_ms"] for r in rows for k in runners if k in r]
    lo, hi = math.log10(min(values) / 2), math.log10(max(values) * 2)
    width, bar, gap, left, height = 900, 18, 30, 260, 40
    total = height + len(rows) * (len(runners) * bar + gap) + 60
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
           % (width, total), '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">Median latency, CPU input to CPU output (log scale, lower is better;'
           ' tvk Nx = peer time / tvk time)</text>']
    y = height
    for r in rows:
        out.append('<text x="10" y="%d">%s, batch %d, %s</text>' % (y + 12, r["model"], r["batch"],
                                                                  r.get("precision", "fp32")))
        for k in runners:
            if k not in r:
                continue
            v = r[k]["median_ms"]
            w = (math.log10(v) - lo) / (hi - lo) * (width - left - 120)
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (left, y, w, bar - 4, colors[k]))
            # Peers carry the ratio the tables use: peer time / tvk time (above 1: tvk is faster).
            ratio = "" if k == "tvk" else "  (tvk %.2fx)" % (v / r["tvk"]["median_ms"])
            out.append('<text x="%.1f" y="%d">%s %.3g ms%s</text>' % (left + w + 4, y + bar - 7, k, v, ratio))
            y += bar
        y += gap
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--models", default="mobilenet_v2,resnet18,squeezenet1_1")
    p.add_argument("--batch", default="1")
    p.add_argument("--precision", default="fp32", help="fp32, fp16 or both (fp32,fp16); fp16 peers are "
                   "model.half() in channels_last on CUDA")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--workdir", default="/tmp/tvk-compare")
    p.add_argument("--json")
    p.add_argument("--svg")
    p.add_argument("--markdown")
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--no-cpu", action="store_true", help="leave out torch CPU (a GPU run's slowest peer)")
    p.add_argument("--eager-too", action="store_true", help="also time tvk with TVK_PLAN=0 (op by op)")
    p.add_argument("--plot-only", metavar="JSON", help="redraw --svg from an earlier run's --json; time nothing")
    args = p.parse_args()
    if args.plot_only:
        svg_chart(json.load(open(args.plot_only))["rows"], args.svg)
        return
    rows = []
    for name in args.models.split(","):
        model = ensure_models(args.tvk, args.workdir, name)
        for batch in [int(b) for b in args.batch.split(",")]:
            for prec in args.precision.split(","):
                log("%s batch %d %s ..." % (name, batch, prec))
                row = {"model": name, "batch": batch, "precision": prec}
                row["tvk"] = tvk_bench(args.tvk, model, batch, args.iters, args.warmup, precision=prec)
                if args.eager_too:
                    row["tvk_eager"] = tvk_bench(args.tvk, model, batch, args.iters, args.warmup, {"TVK_PLAN": "0"},
                                                 precision=prec)
                row.update(torch_peers(name, batch, args.iters, args.warmup, not args.no_compile, prec,
                                       not args.no_cpu))
                rows.append(row)
                if args.json:  # after every row, so that a run cut short keeps what it measured
                    with open(args.json, "w") as f:
                        json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)
    header = "| model | batch | precision | tvk median (min) | " + " | ".join(
        k for k in ["tvk_eager", "torch_cpu", "torch_cuda_eager", "torch_cuda_eager_fp32", "torch_compile",
                  "torch_compile_gpu_input"]
        if any(k in r for r in rows)) + " | tvk GPU ms | peak MiB | dispatches |"
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in rows:
        t = r["tvk"]
        cells = ["%s" % r["model"], "%d" % r["batch"], r.get("precision", "fp32"),
                 "%.3f ms (%.3f)" % (t["median_ms"], t["min_ms"])]
        for k in ["tvk_eager", "torch_cpu", "torch_cuda_eager", "torch_cuda_eager_fp32", "torch_compile",
                  "torch_compile_gpu_input"]:
            if not any(k in x for x in rows):
                continue
            if k in r:
                v = r[k]["median_ms"]
                cells.append("%.3f ms (tvk %.2fx)" % (v, v / t["median_ms"]))
            else:
                cells.append("-")
        # The measure: the better of CUDA eager and torch.compile at this precision.
        peers = [r[k]["median_ms"] for k in ("torch_cuda_eager", "torch_compile") if k in r]
        cells.append("%.2fx" % (min(peers) / t["median_ms"]) if peers else "-")
        cells += ["%.3f" % t["gpu_ms"], "%.1f" % (t["peak_device_bytes"] / 2**20), "%.0f" % t["dispatches_per_inference"]]
        lines.append("| " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    print("(NNNx = peer time / tvk time: above 1, tvk is faster)")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "rows": rows}, f, indent=1)
    if args.svg:
        svg_chart(rows, args.svg)


if __name__ == "__main__":
    main()
