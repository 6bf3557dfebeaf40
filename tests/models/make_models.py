#!/usr/bin/env python3
"""Writes TorchScript model files with the PyTorch at hand, plus an input and torch's eager
output for each, for tvk's model tests. Random weights (seeded); nothing is downloaded.

usage: make_models.py OUT_DIR [--small] [--only NAME,...]

--small shrinks the torchvision models (fewer classes, narrower mobilenet) so the files can be
kept in the repository; the code inside them is the same as the full models'.
"""
import argparse
import os
import sys
from typing import List, Dict, NamedTuple, Optional

import warnings

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from families import FAMILIES, outputs as family_outputs  # noqa: E402


class ControlFlow(torch.nn.Module):
    """if/elif/else, for over range and lists, while, tuple/list/dict outputs, submodule calls."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.scales = [0.5, 1.5]

    def forward(self, x):
        if x.dim() != 4:
            raise ValueError("ControlFlow expects a 4-D input, got " + str(x.dim()) + "-D")
        y = self.conv(x)
        total = torch.zeros_like(y)
        for i in range(3):
            if i == 0:
                total = total + y
            elif i == 1:
                total = total + y * 2.0
            else:
                total = total - y
        for s in self.scales:
            total = total * s
        n = 0
        while n < 2:
            total = torch.relu(total)
            n += 1
        parts = [total, y]
        return total, parts


class DataDependent(torch.nn.Module):
    """Host control flow on a tensor's value: on Vulkan the model reads a result back mid-run."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        if float(y.mean()) > 0.0:
            return torch.relu(y)
        return y * 2.0


class InPlaceShape(torch.nn.Module):
    """In-place ops that change their operand's shape: later uses of y must see the new shape."""

    def forward(self, x):
        y = x * 2.0
        y.transpose_(1, 3)
        y.transpose_(0, 2)
        return torch.relu_(y) + 1.0


class DenseShuffle(torch.nn.Module):
    """densenet's growing feature list and shufflenet's channel shuffle (sizes unpacked from
    x.size(), chunk), the two patterns tvk optimize used to fail on."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.layers = torch.nn.ModuleList([torch.nn.Conv2d(8, 4, 3, padding=1), torch.nn.Conv2d(12, 4, 3, padding=1)])

    def forward(self, x):
        features = [self.stem(x)]
        for layer in self.layers:
            features.append(torch.relu(layer(torch.cat(features, 1))))
        y = torch.cat(features, 1)
        b, c, h, w = y.size()
        y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, -1, h, w)
        y1, y2 = y.chunk(2, 1)
        return torch.cat([y2, y1], 1)


class Attention(torch.nn.Module):
    """vit_b_16 in miniature: patches as tokens, a class token, position embeddings and an
    nn.MultiheadAttention (batch first) whose inference fast path is aten::_native_multi_head_attention;
    its slow path, behind a rank check, has ops tvk lacks (recorded as raising branches)."""

    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, 32, 16, stride=16)
        self.cls = torch.nn.Parameter(torch.randn(1, 1, 32))
        self.pos = torch.nn.Parameter(torch.randn(1, 17, 32) * 0.1)
        self.norm = torch.nn.LayerNorm(32)
        self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2)  # [B, 16, 32]
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1) + self.pos
        y = self.norm(t)
        a, _ = self.attn(y, y, y, need_weights=False)
        return self.head((t + a)[:, 0])


class ShiftedWindows(torch.nn.Module):
    """swin_t and maxvit_t in miniature: a relative-position bias gathered from a table by an
    index buffer (aten::index), attention written as einsum, and swin's shifted-window mask, built
    by writing into slices of a zero tensor (x[a:b, c:d] = k: slice, slice, copy_), whose shift is
    zeroed in an input-dependent branch when the window covers the whole input."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Conv2d(3, 8, 4, stride=4)
        self.table = torch.nn.Parameter(torch.randn(49, 2))
        self.register_buffer("index", torch.randint(0, 49, (16, 16)))
        self.qkv = torch.nn.Linear(8, 24)
        self.window: List[int] = [4, 4]
        self.shift: List[int] = [2, 2]

    def forward(self, x):
        t = self.proj(x).permute(0, 2, 3, 1)  # [B, H, W, 8]
        B, H, W, C = t.shape
        shift = self.shift.copy()
        if self.window[0] >= H:
            shift[0] = 0
        if self.window[1] >= W:
            shift[1] = 0
        if sum(shift) > 0:
            t = torch.roll(t, shifts=(-shift[0], -shift[1]), dims=(1, 2))
        nw = (H // 4) * (W // 4)
        w = t.view(B, H // 4, 4, W // 4, 4, C).permute(0, 1, 3, 2, 4, 5).reshape(B * nw, 16, C)
        q = self.qkv(w).reshape(B * nw, 16, 3, 2, 4).permute(2, 0, 3, 1, 4)
        q, k, v = q[0], q[1], q[2]
        bias = self.table[self.index.view(-1)].view(16, 16, 2).permute(2, 0, 1).contiguous()
        attn = torch.einsum("bhid,bhjd->bhij", q, k) * 0.5 + bias.unsqueeze(0)
        if sum(shift) > 0:
            mask = w.new_zeros((H, W))
            count = 0
            for h in ((0, -4), (-4, -shift[0]), (-shift[0], None)):
                for ww in ((0, -4), (-4, -shift[1]), (-shift[1], None)):
                    mask[h[0]:h[1], ww[0]:ww[1]] = count
                    count += 1
            mask = mask.view(H // 4, 4, W // 4, 4).permute(0, 2, 1, 3).reshape(nw, 16)
            mask = mask.unsqueeze(1) - mask.unsqueeze(2)
            mask = mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)
            attn = (attn.view(B, nw, 2, 16, 16) + mask.unsqueeze(1).unsqueeze(0)).view(-1, 2, 16, 16)
        out = torch.einsum("bhij,bhjd->bhid", attn.softmax(-1), v)
        return out.mean([1, 2])


class DynamicQuant(torch.nn.Module):
    """A small classifier whose linear layers torch.quantization.quantize_dynamic turns into
    int8 (quantized::linear_dynamic on LinearPackedParamsBase): one layer with per-tensor
    weights, one per-channel. Its convolution stays float."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x)).mean([2, 3])
        return self.fc2(torch.relu(self.fc1(y)))


def dynamic_quant():
    from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig, quantize_dynamic

    model = DynamicQuant().eval()
    return quantize_dynamic(model, {"fc1": default_dynamic_qconfig, "fc2": per_channel_dynamic_qconfig})


def static_quant():
    """Static quantization of a CNN: torchvision's quantizable mobilenet_v2 at half width, with
    random batch-norm statistics, fused, prepared with QNNPACK's qconfig, calibrated on random
    inputs and converted. Its script calls quantize_per_tensor, quantized::conv2d(_relu) (int8
    weights, per tensor), quantized::add (the residuals), quantized::linear and dequantize."""
    from torchvision.models import quantization as qm

    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    model = qm.mobilenet_v2(weights=None, quantize=False, width_mult=0.5, num_classes=100).eval()
    randomize_norms(model, torch.Generator().manual_seed(2))
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack")
    torch.ao.quantization.prepare(model, inplace=True)
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(2, 3, 64, 64, generator=g))
    torch.ao.quantization.convert(model, inplace=True)
    torch.backends.quantized.engine = engine
    return model


class Segmentation(torch.nn.Module):
    """The torchvision segmentation models in miniature: a backbone whose intermediate features
    are gathered in a dict under names (IntermediateLayerGetter), a head that upsamples its
    coarse scores bilinearly to the input's size, and a dict output {"out": ..., "aux": ...}."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.BatchNorm2d(16),
                                        torch.nn.ReLU())
        self.deep = torch.nn.Sequential(torch.nn.Conv2d(16, 24, 3, stride=2, padding=1), torch.nn.BatchNorm2d(24),
                                        torch.nn.ReLU(), torch.nn.Conv2d(24, 24, 3, padding=1))
        self.return_layers = {"stem": "low", "deep": "high"}
        self.low_classifier = torch.nn.Conv2d(16, 5, 1)
        self.high_classifier = torch.nn.Conv2d(24, 5, 1)

    def forward(self, x):
        features: Dict[str, torch.Tensor] = {}
        y = self.stem(x)
        if "stem" in self.return_layers:
            features[self.return_layers["stem"]] = y
        y = self.deep(y)
        if "deep" in self.return_layers:
            features[self.return_layers["deep"]] = y
        high = torch.nn.functional.interpolate(self.high_classifier(features["high"]),
                                               size=features["low"].shape[-2:], mode="bilinear", align_corners=False)
        out = self.low_classifier(features["low"]) + high
        result: Dict[str, torch.Tensor] = {}
        result["out"] = torch.nn.functional.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)
        # (interpolate's scale_factor form walks range(input.dim() - 2), which the optimizer cannot
        # freeze yet; torchvision's models give sizes.)
        result["aux"] = torch.nn.functional.interpolate(high, size=[high.shape[-2] * 2, high.shape[-1] * 2],
                                                        mode="bilinear", align_corners=True)
        return result


class Outputs(NamedTuple):
    logits: torch.Tensor
    aux: Optional[torch.Tensor]
    pooled: torch.Tensor


class NamedTupleOut(torch.nn.Module):
    """A NamedTuple output with a None field, as torchvision's googlenet and inception_v3 return."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x) -> Outputs:
        y = self.conv(x)
        return Outputs(torch.relu(y), None, y.mean([2, 3]))


class TorchFlags(torch.nn.Module):
    """What nn.MultiheadAttention asks before its fast path: nested, autocast, CUDA, and (torch
    2.x) the device's type, prim::type."""

    def forward(self, x):
        if x.is_nested or torch.is_autocast_enabled() or x.is_cuda or x.device.type == "meta":
            return x
        return x * 2.0 + 1.0


class XnnpackNet(torch.nn.Module):
    """Saved after PyTorch's own optimize_for_mobile (CPU backend): its convolutions and linear
    layers become prepacked::*_clamp_run on XNNPACK contexts, as in apps' model files."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, stride=2, groups=2)
        self.fc = torch.nn.Linear(8, 5)
        self.fc2 = torch.nn.Linear(5, 4)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = self.conv2(y).mean([2, 3])
        return self.fc2(torch.relu(self.fc(y)))


class HostileView(torch.nn.Module):
    """A hostile file (issue 14): view sizes whose product overflows int64 to exactly the input's 4
    elements, then an index four million floats past its storage. torch rejects it at run time."""

    def forward(self, x):
        return x.view([4611686018427387905, 4]).select(0, 1000000).relu_()


class FallbackMix(torch.nn.Module):
    """Vulkan ops around ops with only CPU kernels (the CPU fallback): top-k, sort, cumsum and
    argmax of class scores, an index_select by the found indices, and torchvision's nms on boxes
    the network computes. Batch 1."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 20)
        self.box = torch.nn.Linear(8, 16)

    def forward(self, x):
        f = torch.relu(self.conv(x)).mean([2, 3])
        s = self.fc(f)
        v, i = torch.topk(s, 5)
        c = torch.cumsum(s, 1)
        picked = torch.index_select(s, 1, i[0])
        b = self.box(f).reshape(-1, 4)
        boxes = torch.cat([b[:, :2], b[:, :2] + torch.relu(b[:, 2:]) + 0.1], 1)
        keep = torchvision.ops.nms(boxes, b[:, 0], 0.3)
        return torch.relu(v) * 2.0, i, torch.argmax(c, 1), torch.sort(s, 1)[0], picked * 3.0, keep


class LegacyOps(torch.nn.Module):
    """Ops whose meaning changed after PyTorch 1.5 (issue 11). In an archive of format version 3
    or older integer div rounds toward zero, and up to version 4 full with an integer fill makes
    floats: torch applies its upgraders to such files, and tvk must too. The Optional attribute
    prints as unchecked_cast(Tensor, ...), which legacy_archive.py writes in the older forms."""

    scale: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.scale = torch.tensor(0.5)

    def forward(self, x):
        c = torch.tensor(x.size(1) * 10 - 7)  # 23 for 3 channels, int64
        q = torch.div(c, 4)  # then 5; now 5.75
        neg = torch.div(torch.tensor(7 - x.size(1) * 10), torch.tensor(4))  # then -5 (not -6); now -5.75
        f = torch.full([2, 3], 7)  # then float32; now int64
        y = torch.div(x, 2)  # true division in every version
        s = self.scale
        if s is not None:
            y = y * s
        return y, q, neg, f


# The small test models: 64x64 inputs, scripted only (tracing would drop the control flow,
# list building or in-place rebinding each one is there for).
SMALL_SCRIPTED = ("control_flow", "data_dependent", "inplace_shape", "named_tuple", "dense_shuffle", "torch_flags",
                  "attention", "segmentation", "shifted_windows", "dynamic_quant", "static_quant", "legacy_ops")

# Of those, traced as well: a traced segmentation model reads the upsampling size through
# prim::NumToTensor and int(), as torchvision's traced segmentation models do.
TRACED_TOO = ("segmentation",)

# Models that must fail cleanly: written as scripts, with no expected output.
HOSTILE = {"hostile_view": HostileView}


def ssdlite():
    """torchvision's ssdlite320_mobilenet_v3_large, random weights drawn so that activations stay
    near 1 (a deep random net is otherwise chaotic: float32 rounding would change its output) and
    the heads' outputs spread (its scores would otherwise tie at 1/91)."""
    import math

    model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None).eval()
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.Conv2d):
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * math.sqrt(1.0 / m.weight[0].numel()))
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) * 0.5 + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
        for head, scale in ((model.head.classification_head, 20.0), (model.head.regression_head, 4.0)):
            for m in head.modules():
                if isinstance(m, torch.nn.Conv2d) and m.kernel_size == (1, 1):
                    m.weight.mul_(scale)
    return model


def build(name, small):
    classes = 100 if small else 1000
    tv = torchvision.models
    if name == "mobilenet_v2":
        return tv.mobilenet_v2(width_mult=0.5 if small else 1.0, num_classes=classes)
    if name == "resnet18":
        return tv.resnet18(num_classes=classes)
    if name == "squeezenet1_1":
        return tv.squeezenet1_1(num_classes=classes)
    if name == "mobilenet_v3_small":
        # hardswish, hardsigmoid, squeeze-excitation (adaptive pooling, broadcast mul), dropout_
        return tv.mobilenet_v3_small(num_classes=classes)
    if name == "control_flow":
        return ControlFlow()
    if name == "data_dependent":
        return DataDependent()
    if name == "inplace_shape":
        return InPlaceShape()
    if name == "named_tuple":
        return NamedTupleOut()
    if name == "dense_shuffle":
        return DenseShuffle()
    if name == "torch_flags":
        return TorchFlags()
    if name == "attention":
        return Attention()
    if name == "segmentation":
        return Segmentation()
    if name == "shifted_windows":
        return ShiftedWindows()
    if name == "dynamic_quant":
        return dynamic_quant()
    if name == "static_quant":
        return static_quant()
    if name == "legacy_ops":
        return LegacyOps()
    raise SystemExit("unknown model " + name)


def randomize_norms(model, generator):
    """Fresh BatchNorm layers are identities (mean 0, var 1, weight 1, bias 0), which would hide
    a wrong batch-norm fold; random statistics make every normalization count."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2, generator=generator)
                m.running_var.uniform_(0.5, 1.5, generator=generator)
                m.weight.uniform_(0.5, 1.5, generator=generator)
                m.bias.uniform_(-0.2, 0.2, generator=generator)


def calibrate_norms(model, x):
    """Sets each BatchNorm's running statistics to those of its own input on x, in one pass (as
    training would leave them). With only random statistics, mobilenet_v2's activations keep
    little of their input: each layer's normalization divides by a variance near 1 that its
    input does not have, the per-channel offsets take over, and the output moved 3.5e-7
    relative between two different images, too little for a test on new data to notice."""
    def set_statistics(norm, inputs):
        t = inputs[0]
        norm.running_mean.copy_(t.mean(dim=(0, 2, 3)))
        norm.running_var.copy_(t.var(dim=(0, 2, 3), unbiased=False) + 1e-3)

    hooks = [m.register_forward_pre_hook(set_statistics) for m in model.modules()
             if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()


def fp16_storage_error(model, x, expected):
    """What storing weights and activations in 16-bit floats alone costs: the model with its
    weights and every layer's output rounded to fp16 (arithmetic in fp32), as max |diff| /
    max |expected|. The bound the fp16 precision test (and bench/accuracy.py) holds tvk to."""
    import copy

    def rounded(t):
        return t.half().float()

    m = copy.deepcopy(model)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear)):
                mod.weight.copy_(rounded(mod.weight))
                if mod.bias is not None:
                    mod.bias.copy_(rounded(mod.bias))
        for mod in m.modules():
            if isinstance(mod, (torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.ReLU6, torch.nn.Linear)):
                mod.register_forward_hook(lambda _m, _i, out: rounded(out))
        y = m(rounded(x))
    return float((y - expected).abs().max() / expected.abs().max())


def flatten(out):
    if out is None:
        return []
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())  # insertion order, as tvk's dicts
    result = []
    for o in out:
        result.extend(flatten(o))
    return result


# Lite-interpreter files without code/ (bytecode only), which tvk runs on its bytecode
# interpreter: torch writes code/ beside bytecode.pkl, and its own lite loader reads only the
# bytecode, so a file with code/ removed is one torch runs the same way.
BYTECODE_TOO = ("control_flow", "named_tuple", "segmentation", "dynamic_quant", "static_quant")


def save_bytecode_only(scripted, path, x=None, expected=None, tolerance=1e-5):
    """Writes `scripted` as a lite file, drops its code/ records, and checks that torch's lite
    interpreter gives `expected` for `x` from what is left (max |difference| / max |expected| at
    most `tolerance`: quantized kernels differ between torch's engines)."""
    import zipfile
    from torch.jit.mobile import _load_for_lite_interpreter

    full = path + ".with_code"
    scripted._save_for_lite_interpreter(full)
    with zipfile.ZipFile(full) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if "/code/" not in info.filename:
                zout.writestr(info, zin.read(info.filename))
    os.remove(full)
    if x is not None:
        got = flatten(_load_for_lite_interpreter(path)(x))
        assert len(got) == len(expected), path
        for g, e in zip(got, expected):
            assert float((g - e).abs().max()) <= tolerance * float(e.abs().max()), path


def write_hostile_bytecode(source, out_dir):
    """Bytecode-only files with one part of control_flow's forward made invalid, as a corrupt or
    hostile file would be: each must be a clean error, at load or when it runs."""
    import pickle
    import zipfile

    with zipfile.ZipFile(source) as z:
        records = {info.filename: z.read(info.filename) for info in z.infolist()}
    key = [k for k in records if k.endswith("/bytecode.pkl")][0]
    bytecode = pickle.loads(records[key])

    def rewrite(change):
        version, forward = bytecode[0], list(bytecode[1])
        code = [list(pair) for pair in forward[1]]
        for pair in code:
            if pair[0] == "instructions":
                pair[1] = tuple(change(list(pair[1])))
        forward[1] = tuple(tuple(pair) for pair in code)
        return (version, tuple(forward)) + tuple(bytecode[2:])

    def first(instructions, opcode, replacement):
        i = [n for n, inst in enumerate(instructions) if inst[0] == opcode][0]
        instructions[i] = replacement
        return instructions

    variants = {
        "register": lambda ins: first(ins, "LOAD", ("LOAD", 999, 0)),
        "jump": lambda ins: first(ins, "JMP", ("JMP", 100000, 0)),
        "operator": lambda ins: first(ins, "OP", ("OP", 999, 0)),
        "opcode": lambda ins: first(ins, "OP", ("BOGUS", 0, 0)),
        "underflow": lambda ins: [("DROP", 0, 0)] * 3 + [("RET", 0, 0)],
        "endless": lambda ins: [("JMP", 0, 0)],
    }
    for name, change in variants.items():
        with zipfile.ZipFile(os.path.join(out_dir, "hostile_bytecode_%s.ptl" % name), "w") as z:
            for k, data in records.items():
                z.writestr(k, pickle.dumps(rewrite(change), protocol=2) if k == key else data)


# Archives in the forms PyTorch 1.3 (format version 1) and 1.4-1.5 (version 2) wrote
# (legacy_archive.py), made from the file of the mode given: <model>_v1.pt and <model>_v2.pt.
LEGACY_TOO = {"control_flow": "script", "named_tuple": "script", "segmentation": "trace", "mobilenet_v2": "trace",
              "legacy_ops": "script"}


def save_legacy(name, out_dir, x, expected):
    """Writes <name>_v1.pt and <name>_v2.pt and checks that torch runs both to `expected` (or,
    for legacy_ops, to what its upgraders make of the model, which then becomes the expected
    output, while the model's own outputs are kept as legacy_ops_modern_expected<i>.npy)."""
    import legacy_archive

    source = os.path.join(out_dir, "%s_%s.pt" % (name, LEGACY_TOO[name]))
    outputs = []
    for version in (1, 2):
        path = os.path.join(out_dir, "%s_v%d.pt" % (name, version))
        legacy_archive.write_legacy(source, path, version)
        with torch.no_grad():
            outputs.append(flatten(torch.jit.load(path)(x)))
    for got in outputs:
        assert len(got) == len(outputs[0]) and all(torch.equal(a, b) for a, b in zip(got, outputs[0])), name
    if name == "legacy_ops":
        for i, (old, new) in enumerate(zip(outputs[0], expected)):
            np.save(os.path.join(out_dir, "legacy_ops_modern_expected%d.npy" % i), new.numpy())
            np.save(os.path.join(out_dir, "legacy_ops_expected%d.npy" % i), old.numpy())
        assert outputs[0][1].dtype == torch.int64 and int(outputs[0][1]) == 5 and int(outputs[0][2]) == -5
        assert outputs[0][3].dtype == torch.float32 and expected[3].dtype == torch.int64
        return
    for got, want in zip(outputs[0], expected):
        assert float((got - want).abs().max()) <= 1e-5 * float(want.abs().max()), name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--small", action="store_true")
    parser.add_argument(
        "--only", default="mobilenet_v2,resnet18,squeezenet1_1,mobilenet_v3_small,control_flow,data_dependent,inplace_shape,named_tuple,dense_shuffle,torch_flags,attention,segmentation,shifted_windows,dynamic_quant,static_quant,xnnpack,hostile_view,fallback_mix,ssdlite,legacy_ops,"
        + ",".join(FAMILIES)
    )
    parser.add_argument("--modes", default="script,trace")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in args.only.split(","):
        if name == "xnnpack":
            from torch.utils.mobile_optimizer import optimize_for_mobile

            model = optimize_for_mobile(torch.jit.script(XnnpackNet().eval()))
            x = torch.rand(1, 3, 16, 16, generator=torch.Generator().manual_seed(1))
            np.save(os.path.join(args.out_dir, "xnnpack_input.npy"), x.numpy())
            with torch.no_grad():
                np.save(os.path.join(args.out_dir, "xnnpack_expected0.npy"), model(x).numpy())
            torch.jit.save(model, os.path.join(args.out_dir, "xnnpack_script.pt"))
            # The same as a PyTorch Mobile lite-interpreter file (.ptl: bytecode.pkl beside code/),
            # and as one with bytecode only.
            model._save_for_lite_interpreter(os.path.join(args.out_dir, "xnnpack_lite.ptl"))
            with torch.no_grad():
                save_bytecode_only(model, os.path.join(args.out_dir, "xnnpack_bytecode.ptl"), x, [model(x)])
            continue
        if name == "fallback_mix":
            model = FallbackMix().eval()
            x = torch.rand(1, 3, 16, 16, generator=torch.Generator().manual_seed(1))
            np.save(os.path.join(args.out_dir, "fallback_mix_input.npy"), x.numpy())
            with torch.no_grad():
                for i, e in enumerate(model(x)):
                    np.save(os.path.join(args.out_dir, "fallback_mix_expected%d.npy" % i), e.numpy())
            torch.jit.save(torch.jit.script(model), os.path.join(args.out_dir, "fallback_mix_script.pt"))
            continue
        if name == "ssdlite":
            # Scripted whole: List[Tensor] in, (losses, detections) out; the test compares the
            # detections (boxes, scores, labels) of one image.
            model = ssdlite()
            x = torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(1))
            np.save(os.path.join(args.out_dir, "ssdlite_input.npy"), x.numpy())
            scripted = torch.jit.script(model)
            with torch.no_grad():
                detections = scripted([x])[1][0]
            for key in ("boxes", "scores", "labels"):
                np.save(os.path.join(args.out_dir, "ssdlite_expected_%s.npy" % key), detections[key].numpy())
            torch.jit.save(scripted, os.path.join(args.out_dir, "ssdlite_script.pt"))
            continue
        if name in FAMILIES:
            # issue 48's families: their own inputs; scripted and traced, with torch's outputs.
            model, x = FAMILIES[name]()
            np.save(os.path.join(args.out_dir, name + "_input.npy"), x.numpy())
            for i, e in enumerate(family_outputs(model, x)):
                np.save(os.path.join(args.out_dir, "%s_expected%d.npy" % (name, i)), e.numpy())
            torch.jit.save(torch.jit.script(model), os.path.join(args.out_dir, name + "_script.pt"))
            with warnings.catch_warnings():  # tracing recurrent layers warns about their flattened weights
                warnings.simplefilter("ignore")
                torch.jit.save(torch.jit.trace(model, x, check_trace=False), os.path.join(args.out_dir, name + "_trace.pt"))
            continue
        if name in HOSTILE:
            torch.jit.save(torch.jit.script(HOSTILE[name]()), os.path.join(args.out_dir, name + "_script.pt"))
            continue
        model = build(name, args.small).eval()
        randomize_norms(model, torch.Generator().manual_seed(2))
        if name == "mobilenet_v2":
            calibrate_norms(model, torch.rand(2, 3, 224, 224, generator=torch.Generator().manual_seed(4)))
        size = 64 if name in SMALL_SCRIPTED else 224
        x = torch.rand(1, 3, size, size, generator=torch.Generator().manual_seed(1))
        np.save(os.path.join(args.out_dir, name + "_input.npy"), x.numpy())
        with torch.no_grad():
            expected = flatten(model(x))
        for i, e in enumerate(expected):
            np.save(os.path.join(args.out_dir, "%s_expected%d.npy" % (name, i)), e.numpy())
        if name == "mobilenet_v2":
            np.save(os.path.join(args.out_dir, "mobilenet_v2_fp16_storage_error.npy"),
                    np.array([fp16_storage_error(model, x, expected[0])], dtype=np.float32))
            # Other image sizes: a frozen, optimized model must accept every shape the original did.
            for other in (160, 256):
                y = torch.rand(1, 3, other, other, generator=torch.Generator().manual_seed(other))
                np.save(os.path.join(args.out_dir, "%s_input%d.npy" % (name, other)), y.numpy())
                with torch.no_grad():
                    np.save(os.path.join(args.out_dir, "%s_expected%d_0.npy" % (name, other)), model(y).numpy())
        for mode in args.modes.split(","):
            if mode == "trace" and name in SMALL_SCRIPTED and name not in TRACED_TOO:
                continue  # tracing would drop the behaviour under test
            # strict=False: a traced dict output (segmentation) stays a dict.
            scripted = torch.jit.script(model) if mode == "script" else torch.jit.trace(model, x, strict=False)
            path = os.path.join(args.out_dir, "%s_%s.pt" % (name, mode))
            torch.jit.save(scripted, path)
        if name in LEGACY_TOO:
            save_legacy(name, args.out_dir, x, expected)
        if name in ("dynamic_quant", "static_quant"):
            # What mobile apps ship: the quantized model frozen (its packed parameters become
            # constants, saved in the form torch's own serializer writes), optimized for the
            # CPU, and that as a lite-interpreter file.
            from torch.utils.mobile_optimizer import optimize_for_mobile

            engine = torch.backends.quantized.engine
            torch.backends.quantized.engine = "qnnpack"
            scripted = torch.jit.script(model).eval()
            torch.jit.save(torch.jit.freeze(scripted), os.path.join(args.out_dir, name + "_frozen.pt"))
            mobile = optimize_for_mobile(scripted)
            torch.jit.save(mobile, os.path.join(args.out_dir, name + "_mobile.pt"))
            mobile._save_for_lite_interpreter(os.path.join(args.out_dir, name + "_lite.ptl"))
            torch.backends.quantized.engine = engine
        if name in BYTECODE_TOO:
            engine = torch.backends.quantized.engine
            torch.backends.quantized.engine = "qnnpack"
            # torch 1.13's lite interpreter cannot build the NamedTuple output (it fails with
            # "basic_string::_M_create"), so that file is checked against the scripted model only.
            with torch.no_grad():
                save_bytecode_only(torch.jit.script(model), os.path.join(args.out_dir, name + "_bytecode.ptl"),
                                   None if name == "named_tuple" else x, expected,
                                   2e-2 if name.endswith("_quant") else 1e-5)
            torch.backends.quantized.engine = engine
            if name == "control_flow":
                write_hostile_bytecode(os.path.join(args.out_dir, name + "_bytecode.ptl"), args.out_dir)
    print("torch", torch.__version__, "wrote", sorted(os.listdir(args.out_dir)))


if __name__ == "__main__":
    sys.exit(main())
