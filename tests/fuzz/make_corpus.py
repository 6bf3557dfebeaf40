#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from real torch-saved files (Debian's torch 1.13): small
scripted and traced models (convolutions, control flow, lists, NamedTuples), the records inside
them (data.pkl, constants.pkl, bytecode.pkl, code), lite files with bytecode only, .npy files,
and torch 2.11's torch.export fixtures (tests/models/torch2/export) with their programs' JSON. Usage: make_corpus.py OUT_DIR"""
import io
import os
import sys
import zipfile
from typing import NamedTuple, Optional

import numpy as np
import torch


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.fc(y.mean([2, 3]))


class Flow(torch.nn.Module):
    def forward(self, x):
        parts = [x]
        for i in range(3):
            parts.append(torch.sigmoid(parts[-1]) * float(i + 1))
        if x.dim() == 4:
            return torch.cat(parts, 1).view(x.size(0), -1).softmax(1)
        return x


class Out(NamedTuple):
    a: torch.Tensor
    b: Optional[torch.Tensor]


class Named(torch.nn.Module):
    def forward(self, x) -> Out:
        return Out(x.transpose(1, 2).contiguous(), None)


def main():
    out = sys.argv[1]
    dirs = {t: os.path.join(out, t) for t in ("zip", "unpickle", "parser", "npy", "load", "load_vulkan", "export")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    x = torch.rand(1, 3, 8, 8)
    archives = []
    for name, model in (("small", Small().eval()), ("flow", Flow()), ("named", Named())):
        for mode in ("script", "trace"):
            if mode == "trace" and name != "small":
                continue
            m = torch.jit.script(model) if mode == "script" else torch.jit.trace(model, x)
            buf = io.BytesIO()
            torch.jit.save(m, buf)
            archives.append(("%s_%s" % (name, mode), buf.getvalue()))
            if mode == "script" and name != "named":
                # A lite-interpreter file with bytecode only (no code/): tvk's bytecode
                # interpreter reads and runs it.
                lite = io.BytesIO(m._save_to_buffer_for_lite_interpreter())
                stripped = io.BytesIO()
                with zipfile.ZipFile(lite) as zin, zipfile.ZipFile(stripped, "w") as zout:
                    for info in zin.infolist():
                        if "/code/" not in info.filename:
                            zout.writestr(info, zin.read(info.filename))
                archives.append(("%s_bytecode" % name, stripped.getvalue()))
    # The same files in the forms PyTorch 1.3 wrote (format version 1: op_version_set headers,
    # 6-element storage ids, no type tags; tests/models/legacy_archive.py).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
    import legacy_archive

    for name, data in list(archives):
        if name in ("small_script", "small_trace", "flow_script"):
            legacy = io.BytesIO()
            legacy_archive.write_legacy(io.BytesIO(data), legacy, 1)
            archives.append((name + "_v1", legacy.getvalue()))
    for name, data in archives:
        for target in ("zip", "load", "load_vulkan"):
            with open(os.path.join(dirs[target], name + ".pt"), "wb") as f:
                f.write(data)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                record = info.filename.split("/", 1)[1]
                body = z.read(info)
                safe = name + "_" + record.replace("/", "_")
                if record.endswith(".pkl"):
                    open(os.path.join(dirs["unpickle"], safe), "wb").write(body)
                elif record.startswith("code/") and record.endswith(".py"):
                    open(os.path.join(dirs["parser"], safe), "wb").write(body)
    for i, a in enumerate((np.zeros((2, 3), np.float32), np.arange(5, dtype=np.int64), np.array([True, False]),
                           np.ones((1, 3, 4, 4), np.float32))):
        buf = io.BytesIO()
        np.save(buf, a)
        open(os.path.join(dirs["npy"], "seed%d.npy" % i), "wb").write(buf.getvalue())
    # torch.export programs (torch 2.11's fixtures): whole archives for the loaders, and each
    # program's JSON for the export target, which puts it into cnn_bn.pt2's archive.
    exports = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "torch2", "export")
    for name in sorted(os.listdir(exports)):
        if not name.endswith(".pt2"):
            continue
        data = open(os.path.join(exports, name), "rb").read()
        for target in ("zip", "load", "load_vulkan"):
            open(os.path.join(dirs[target], name), "wb").write(data)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for record in z.namelist():
                if record.endswith("models/model.json") or record.endswith("serialized_exported_program.json"):
                    open(os.path.join(dirs["export"], name + ".json"), "wb").write(z.read(record))
    print("corpora in", out, {t: len(os.listdir(d)) for t, d in dirs.items()})


if __name__ == "__main__":
    main()
