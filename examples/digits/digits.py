#!/usr/bin/env python3
"""The demo's real model: a small CNN trained on the 8x8 handwritten digits that scikit-learn
bundles (1,797 labelled images; nothing is downloaded).

  digits.py train OUT    trains it with torch on the CPU (fixed seed, 80/20 split), saves
                         OUT/digits.pt (torch.jit.script + torch.jit.save), OUT/labels.txt and the
                         held-out images as OUT/test/NNNN_L.png (L: the true digit), and torch's
                         probabilities on those PNGs in OUT/torch.json
  digits.py report OUT TVK_JSON
                         accuracy of torch and of `tvk classify --json` on the held-out images,
                         the largest probability difference, and a few images with their top-3.
                         Exits non-zero unless tvk and torch agree.

The images are stored as 8-bit gray PNGs (value * 255 / 16), and the model is trained on exactly
what `tvk classify --channels 1 --size 8 --resize 8` feeds it: pixel / 255, normalized with mean
0.5 and std 0.5."""
import json, os, sys, time

import numpy as np
import torch
from PIL import Image


class DigitsNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        c = torch.nn
        self.features = c.Sequential(
            c.Conv2d(1, 32, 3, padding=1), c.BatchNorm2d(32), c.ReLU(),
            c.Conv2d(32, 32, 3, padding=1), c.BatchNorm2d(32), c.ReLU(), c.MaxPool2d(2),       # 4x4
            c.Conv2d(32, 64, 3, padding=1), c.BatchNorm2d(64), c.ReLU(), c.MaxPool2d(2))       # 2x2
        self.classifier = c.Sequential(c.Flatten(), c.Dropout(0.2), c.Linear(64 * 4, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_png(path):
    x = np.asarray(Image.open(path), dtype=np.float32) / 255.0
    return (torch.from_numpy(x)[None, None] - 0.5) / 0.5


def train(out):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    torch.manual_seed(0)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    digits = load_digits()
    pixels = np.rint(digits.images * (255.0 / 16.0)).astype(np.uint8)  # the PNGs' 8-bit values
    x_train, x_test, y_train, y_test = train_test_split(pixels, digits.target, test_size=0.2, random_state=0,
                                                        stratify=digits.target)
    to_input = lambda a: (torch.from_numpy(a.astype(np.float32) / 255.0)[:, None] - 0.5) / 0.5
    xt, yt = to_input(x_train), torch.from_numpy(y_train).long()
    model = DigitsNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=25 * ((len(xt) + 63) // 64))
    start = time.time()
    for epoch in range(25):
        model.train()
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            # small random shifts: the digits are not all centred the same way
            batch = torch.roll(xt[idx], shifts=tuple(np.random.RandomState(epoch * 1000 + i).randint(-1, 2, 2)), dims=(2, 3))
            loss = torch.nn.functional.cross_entropy(model(batch), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    print(f"trained DigitsNet on {len(xt)} images in {time.time() - start:.1f} s (torch {torch.__version__}, CPU)")

    os.makedirs(f"{out}/test", exist_ok=True)
    torch.jit.save(torch.jit.script(model), f"{out}/digits.pt")
    with open(f"{out}/labels.txt", "w") as f:
        f.write("".join(f"{d}\n" for d in range(10)))
    probs = {}
    with torch.no_grad():
        for n, (img, label) in enumerate(zip(x_test, y_test)):
            path = f"{out}/test/{n:04d}_{label}.png"
            Image.fromarray(img, "L").save(path)
            probs[os.path.basename(path)] = torch.softmax(model(load_png(path)), 1)[0].tolist()
    with open(f"{out}/torch.json", "w") as f:
        json.dump(probs, f)
    print(f"saved digits.pt (scripted), labels.txt and {len(x_test)} held-out test images as PNGs in {out}/test")


def ascii_art(path):
    shades = " .:-=+*#%@"
    a = np.asarray(Image.open(path))
    return ["".join(shades[int(v) * (len(shades) - 1) // 255] * 2 for v in row) for row in a]


def report(out, tvk_json):
    torch_probs = json.load(open(f"{out}/torch.json"))
    results = json.load(open(tvk_json))
    n = len(results["images"])
    assert n == len(torch_probs), f"tvk classified {n} images, torch {len(torch_probs)}"
    right_tvk = right_torch = agree = 0
    max_diff = 0.0
    for r in results["images"]:
        name = os.path.basename(r["image"])
        truth = int(name.split("_")[1].split(".")[0])
        p = np.array(torch_probs[name])
        top = r["top"]
        right_tvk += int(top[0]["label"]) == truth
        right_torch += int(np.argmax(p)) == truth
        agree += int(top[0]["index"]) == int(np.argmax(p))
        max_diff = max(max_diff, max(abs(t["probability"] - p[t["index"]]) for t in top))
    device = results["device"]
    print(f"accuracy on {n} held-out digits: torch (CPU) {100.0 * right_torch / n:.2f}%, "
          f"tvk ({device}) {100.0 * right_tvk / n:.2f}%")
    print(f"same top-1 class on {agree}/{n} images; largest top-3 probability difference {max_diff:.1e}")
    # A few images with tvk's top-3, side by side.
    shown = results["images"][:4]
    arts = [ascii_art(r["image"]) for r in shown]
    print()
    print("   ".join(f"{os.path.basename(r['image']):<16}" for r in shown))
    for row in range(8):
        print("   ".join(a[row] for a in arts))
    for k in range(3):
        print("   ".join(f"{r['top'][k]['label']}: {100 * r['top'][k]['probability']:6.2f}%".ljust(16) for r in shown))
    ok = agree == n and right_tvk == right_torch and max_diff <= 1e-4
    print()
    print("tvk on %s %s torch" % (device, "matches" if ok else "does NOT match"))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "train":
        train(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
