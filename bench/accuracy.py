#!/usr/bin/env python3
"""tvk's outputs against torch's on the default Vulkan device: torchvision models scripted with
random weights, run by `tvk run` as loaded and after `tvk optimize`, at each batch size and
precision. Batch norms get random scales and shifts (so that a wrong fold shows) and running
statistics taken from their own inputs on a random batch, so that outputs follow inputs (with
random statistics mobilenet_v2's moved 4e-7 relative between two images, and no error that
depends on the input could show). Prints how far the output moves between two inputs, and the
max relative error (max |tvk - torch| / max |torch|) of each run, and of its worst image,
beside torch's own fp16 storage error (weights and every layer's output rounded to fp16);
fails when an fp32 run exceeds 1e-4 or an fp16 run both 1e-2 and torch's fp16 storage error.

    bench/accuracy.py --tvk build/tvk [--models mobilenet_v2,resnet18,squeezenet1_1]
                      [--batch 1,2] [--precision fp32,fp16] [--workdir DIR]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch

# The models as scripts/check_classifiers.py builds them (random batch-norm statistics, no
# all-zero linear layers).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from check_classifiers import build  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from make_models import calibrate_norms, fp16_storage_error  # noqa: E402


def relative(a, b):
    return float((a - b).abs().max() / b.abs().max())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tvk", default="build/tvk")
    p.add_argument("--models", default="mobilenet_v2,resnet18,squeezenet1_1")
    p.add_argument("--batch", default="1,2")
    p.add_argument("--precision", default="fp32,fp16")
    p.add_argument("--workdir", default="/tmp/tvk_accuracy")
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    limits = {"fp32": 1e-4, "fp16": 1e-2}
    failed = False
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = build(name)
        calibrate_norms(model, torch.rand(2, 3, 224, 224, generator=torch.Generator().manual_seed(4)))
        with torch.no_grad():
            a, b = (model(torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(s))) for s in (5, 6))
        print(f"{name}: the output moves {relative(a, b):.2e} relative between two inputs")
        loaded = os.path.join(args.workdir, name + ".pt")
        optimized = os.path.join(args.workdir, name + "-vulkan.pt")
        torch.jit.save(torch.jit.script(model), loaded)
        subprocess.run([args.tvk, "optimize", loaded, "-o", optimized], check=True, capture_output=True)
        x_path, y_path = os.path.join(args.workdir, "x.npy"), os.path.join(args.workdir, "y.npy")
        for batch in (int(b) for b in args.batch.split(",")):
            x = torch.rand(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
            np.save(x_path, x.numpy())
            with torch.no_grad():
                expected_t = model(x)
            expected = expected_t.numpy()
            precisions = args.precision.split(",")
            # torch's own fp16 figure: one more run of the model, only where fp16 runs need it.
            storage_error = fp16_storage_error(model, x, expected_t) if "fp16" in precisions else 0.0
            limits["fp16"] = max(1e-2, storage_error)
            for precision in precisions:
                for form, path in (("as loaded", loaded), ("optimized", optimized)):
                    r = subprocess.run([args.tvk, "run", path, "--input", x_path, "--output", y_path, "--device",
                                        "vulkan", "--precision", precision], capture_output=True, text=True)
                    if r.returncode != 0:
                        print(f"{name} batch {batch} {precision} {form}: FAILED {r.stderr.strip()[-200:]}")
                        failed = True
                        continue
                    y = np.load(y_path)
                    err = float(np.abs(y - expected).max() / np.abs(expected).max())
                    # Each image against its own output's scale, the worst of them.
                    per_image = max(float(np.abs(y[i] - expected[i]).max() / np.abs(expected[i]).max())
                                    for i in range(batch))
                    ok = err <= limits[precision] and per_image <= limits[precision]
                    failed |= not ok
                    peer = f" (torch's fp16 storage: {storage_error:.2e})" if precision == "fp16" else ""
                    worst = f", worst image {per_image:.2e}" if batch > 1 else ""
                    print(f"{name} batch {batch} {precision} {form}: max rel. error {err:.2e}{worst}{peer}"
                          f"{'' if ok else '  TOO LARGE'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
