#!/usr/bin/env python3
"""tvk classify against torch: the same images preprocessed by torchvision (PIL-decoded, float,
Resize(short side, antialias=True), CenterCrop, Normalize), the same scripted model, softmax.
Usage: classify_test.py TVK_CLI WORK_DIR. Exits non-zero on any mismatch."""
import json, os, subprocess, sys

import numpy as np
import torch
import torchvision.transforms.functional as TF
from PIL import Image

tvk, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
torch.manual_seed(0)
rng = np.random.default_rng(0)
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def smooth_image(h, w, c):
    """Random but smooth pixels, so resizing and cropping matter to the result."""
    small = rng.uniform(0, 255, size=(h // 8 + 2, w // 8 + 2, c))
    big = np.kron(small, np.ones((8, 8, 1)))[:h, :w]
    return np.clip(big + rng.normal(0, 20, size=big.shape), 0, 255).astype(np.uint8)


def reference(model, path, size, resize, mean, std, channels):
    img = Image.open(path)
    img = img.convert("L" if channels == 1 else "RGB")
    x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0)
    x = x[None] if channels == 1 else x.permute(2, 0, 1)
    x = TF.resize(x, resize, antialias=True)
    x = TF.center_crop(x, [size, size])
    x = TF.normalize(x, mean, std)
    with torch.no_grad():
        return torch.softmax(model(x[None]).flatten(), 0).numpy()


def classify(*args):
    r = subprocess.run([tvk, "classify", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def compare(model, images, extra, size, resize, mean, std, channels, topk, tol, what):
    for device in ("cpu", "vulkan"):
        rc, out, err = classify(*images, *extra, "--topk", str(topk), "--json", "--device", device)
        check(rc == 0, f"{what} on {device}: exit 0 ({err.strip()})")
        if rc:
            continue
        got = json.loads(out)
        check(got["device"] == device and len(got["images"]) == len(images), f"{what} on {device}: one result per image")
        for path, result in zip(images, got["images"]):
            p = reference(model, path, size, resize, mean, std, channels)
            want = np.argsort(-p, kind="stable")[:topk]
            idx = [t["index"] for t in result["top"]]
            probs = np.array([t["probability"] for t in result["top"]])
            check(result["image"] == path and len(idx) == topk, f"{what} on {device}: {os.path.basename(path)} has top-{topk}")
            err_p = float(np.abs(probs - p[idx]).max())
            check(err_p <= tol and idx[0] == int(want[0]) and set(idx) == set(int(i) for i in want),
                  f"{what} on {device}: {os.path.basename(path)} top-{topk} {idx} vs torch {want.tolist()}, "
                  f"max |p - p_torch| = {err_p:.2e} <= {tol}")
            yield device, result


# An ImageNet-shaped classifier (1000 classes, default preprocessing, bundled class names).
class Tiny(torch.nn.Module):
    def __init__(self, cin, classes):
        super().__init__()
        self.conv = torch.nn.Conv2d(cin, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16 * 4, classes)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 2).flatten(1)
        return self.fc(x) * 40.0  # peaked probabilities, so 1e-4 is a strict bound


imagenet = Tiny(3, 1000).eval()
torch.jit.save(torch.jit.script(imagenet), f"{work}/imagenet_like.pt")
paths = []
for name, (h, w) in {"wide": (257, 301), "tall": (333, 250), "small": (120, 180), "large": (600, 720)}.items():
    paths.append(f"{work}/{name}.png")
    Image.fromarray(smooth_image(h, w, 3)).save(paths[-1])
paths.append(f"{work}/gray.png")  # a gray image for an RGB model: channels replicated
Image.fromarray(smooth_image(240, 260, 1)[:, :, 0], "L").save(paths[-1])
paths.append(f"{work}/rgba.png")  # alpha is dropped
Image.fromarray(np.dstack([smooth_image(230, 230, 3), np.full((230, 230), 128, np.uint8)]), "RGBA").save(paths[-1])
mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
results = list(compare(imagenet, paths, ["--model", f"{work}/imagenet_like.pt"], 224, 256, mean, std, 3, 5, 1e-4,
                       "ImageNet defaults"))
from torchvision.models._meta import _IMAGENET_CATEGORIES
check(all(t["label"] == _IMAGENET_CATEGORIES[t["index"]] for _, r in results for t in r["top"]),
      "1000 classes are named with torchvision's ImageNet-1k names")

# Optimized for Vulkan: CPU image in, CPU scores out, computed on Vulkan.
r = subprocess.run([tvk, "optimize", f"{work}/imagenet_like.pt", "-o", f"{work}/imagenet_like-vulkan.pt"],
                   capture_output=True, text=True)
check(r.returncode == 0, "tvk optimize --backend vulkan")
for device, _ in compare(imagenet, paths[:2], ["--model", f"{work}/imagenet_like-vulkan.pt"], 224, 256, mean, std, 3,
                         5, 1e-4, "optimized model"):
    pass

# JPEG: stb_image and PIL's libjpeg decode a little differently (IDCT rounding), so only close.
jpeg = f"{work}/photo.jpg"
Image.fromarray(smooth_image(260, 280, 3)).save(jpeg, quality=95, subsampling=0)
list(compare(imagenet, [jpeg], ["--model", f"{work}/imagenet_like.pt"], 224, 256, mean, std, 3, 1, 2e-2, "JPEG"))

# A gray 8x8 model with its own labels, size and normalization (the demo's digits setting).
digits = Tiny(1, 10).eval()
torch.jit.save(torch.jit.script(digits), f"{work}/digits.pt")
with open(f"{work}/digits.txt", "w") as f:
    f.write("\n".join(f"digit {i}" for i in range(10)) + "\n")
gray = []
for i in range(3):
    gray.append(f"{work}/digit{i}.png")
    Image.fromarray(rng.integers(0, 256, size=(8, 8), dtype=np.uint8), "L").save(gray[-1])
gray.append(f"{work}/digit_rgb.png")  # RGB made gray with torchvision's (PIL's "L") weights
Image.fromarray(rng.integers(0, 256, size=(8, 8, 3), dtype=np.uint8)).save(gray[-1])
extra = ["--model", f"{work}/digits.pt", "--labels", f"{work}/digits.txt", "--size", "8", "--resize", "8",
         "--channels", "1", "--mean", "0.5", "--std", "0.25"]
results = list(compare(digits, gray[:3], extra, 8, 8, [0.5], [0.25], 1, 3, 1e-4, "gray 8x8 with labels"))
check(all(t["label"] == f"digit {t['index']}" for _, r in results for t in r["top"]), "--labels names the classes")
# PIL's "L" conversion rounds to uint8 where tvk keeps floats: close, not equal.
list(compare(digits, gray[3:], extra, 8, 8, [0.5], [0.25], 1, 3, 1e-2, "RGB to gray"))

# Text output: the image and its time, one line per class, then the totals.
rc, out, err = classify(paths[0], "--model", f"{work}/imagenet_like.pt", "--topk", "3", "--device", "cpu")
lines = out.splitlines()
check(rc == 0 and lines[0].startswith(paths[0] + "  (") and lines[0].endswith(" ms)") and len(lines) == 5 and
      lines[1].strip().endswith(")") and "%" in lines[1] and lines[4].startswith("1 image(s) in "),
      "text output: the image's path and time, its top-3 with percentages, the totals: " + repr(out[:300]))

# Folders (recursively, sorted, images only), quoted glob patterns, and batches of N images in one
# forward: the same classes and probabilities as one image at a time, and a time for each image.
folder = f"{work}/folder"
os.makedirs(f"{folder}/sub", exist_ok=True)
for i, src in enumerate(paths[:3]):
    dst = f"{folder}/sub/{i}.png" if i == 2 else f"{folder}/{i}.png"
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        fout.write(fin.read())
with open(f"{folder}/notes.txt", "w") as f:
    f.write("not an image\n")
model_args = ["--model", f"{work}/imagenet_like.pt", "--topk", "3", "--json"]
for device in ("cpu", "vulkan"):
    rc, out, err = classify(*paths[:3], *model_args, "--device", device)
    one_by_one = json.loads(out)["images"] if rc == 0 else []
    for args, what in [([folder], "a folder"), ([f"{folder}/*.png", f"{folder}/sub/*.png"], "glob patterns"),
                       ([folder, "--batch", "2"], "a folder in batches of 2"),
                       ([folder, "--batch", "8"], "a folder in one batch")]:
        rc, out, err = classify(*args, *model_args, "--device", device)
        got = json.loads(out) if rc == 0 else {"images": []}
        names = [os.path.relpath(r["image"], folder) for r in got["images"]]
        check(rc == 0 and names == ["0.png", "1.png", "sub/2.png"], f"{what} on {device}: the 3 images, sorted: {names} "
              f"{err.strip()}")
        same = len(got["images"]) == 3 and all(
            [t["index"] for t in g["top"]] == [t["index"] for t in w["top"]] and
            max(abs(a["probability"] - b["probability"]) for a, b in zip(g["top"], w["top"])) < 1e-5 and g["ms"] > 0
            for g, w in zip(got["images"], one_by_one))
        check(same and got.get("total_ms", 0) > 0, f"{what} on {device}: the same top-3 as one image at a time, timed")

# Bad input: one line on stderr naming what, exit status 1.
with open(f"{work}/broken.png", "wb") as f:
    f.write(open(paths[0], "rb").read()[:100])
os.makedirs(f"{work}/no_images", exist_ok=True)
with open(f"{work}/wrong_labels.txt", "w") as f:
    f.write("a\nb\n")
for args, needle in [
    ([f"{work}/missing.png", "--model", f"{work}/digits.pt"], "missing.png"),
    ([f"{work}/broken.png", "--model", f"{work}/digits.pt"], "broken.png"),
    ([gray[0], "--model", f"{work}/digits.pt", "--channels", "1", "--labels", f"{work}/wrong_labels.txt"], "labels"),
    ([gray[0], "--model", f"{work}/digits.pt", "--channels", "1", "--mean", "0.1,0.2"], "--mean"),
    ([gray[0], "--model", f"{work}/digits.pt", "--channels", "3", "--size", "8"], ""),  # 3 channels into a 1-channel conv
    ([gray[0]], "--model"),
    ([f"{work}/nothing_here_*.png", "--model", f"{work}/digits.pt"], "no file matches"),
    ([f"{work}/no_images", "--model", f"{work}/digits.pt"], "holds no images"),
    ([f"{folder}/notes.txt", "--model", f"{work}/digits.pt"], "reads PNG, JPEG and BMP"),
    ([paths[0], paths[1], "--model", f"{work}/digits.pt", "--channels", "1", "--batch", "0"], "--batch"),
]:
    rc, out, err = classify(*args, "--device", "cpu")
    check(rc == 1 and err.count("\n") == 1 and needle in err, f"error for {args[0:1] + args[2:]}: {err.strip()}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
