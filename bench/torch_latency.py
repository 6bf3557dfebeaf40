#!/usr/bin/env python3
"""PyTorch's forward latency for the torchvision models tvk benchmarks, measured the way
`tvk bench` measures: a CPU input in, the output back on the CPU, after warm-up runs.

usage: torch_latency.py [--device cuda|cpu] [--iterations N] [--models a,b]
"""
import argparse
import statistics
import time

import torch
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--models", default="mobilenet_v2,resnet18,squeezenet1_1")
    args = p.parse_args()
    device = torch.device(args.device)
    x = torch.rand(1, 3, 224, 224)
    for name in args.models.split(","):
        model = getattr(torchvision.models, name)().eval().to(device)
        times = []
        with torch.no_grad():
            for i in range(args.warmup + args.iterations):
                start = time.perf_counter()
                y = model(x.to(device)).cpu()
                if device.type == "cuda":
                    torch.cuda.synchronize()
                if i >= args.warmup:
                    times.append((time.perf_counter() - start) * 1e3)
        print("torch %s %s on %s: mean %.3f ms, median %.3f ms, min %.3f ms over %d runs"
              % (torch.__version__, name, args.device, statistics.mean(times), statistics.median(times), min(times),
                 args.iterations))


if __name__ == "__main__":
    main()
