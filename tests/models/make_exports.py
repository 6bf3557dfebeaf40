#!/usr/bin/env python3
"""torch.export fixtures (issue 51): small programs written by `torch.export.save`, with their
inputs and torch's eager outputs, for tvk's .pt2 loader. Needs torch 2.x (the local 1.13 cannot
export); tests/models/torch2/export/README.md says which torch wrote the kept files.

usage: make_exports.py OUT_DIR [--only name,...] [--big]

For each case NAME it writes NAME.pt2, NAME_input<i>.npy and NAME_expected<i>.npy (outputs
flattened in pytree order). --big also writes mobilenet_v2 at full size (NAME.pt2 and its
TorchScript twin NAME_script.pt, same weights) for speed comparisons; those are not kept.
"""
import argparse
import json
import os
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


def randomize_norms(model):
    """Random batch-norm statistics and affine terms, so a wrong fold shows in the outputs."""
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)
    return model


class CnnBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.grouped = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=4), nn.BatchNorm2d(32), nn.ReLU6())
        self.dw = nn.Conv2d(32, 32, 5, padding=2, groups=32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.grouped(self.stem(x))
        x = x + F.hardswish(self.dw(x))
        x = F.max_pool2d(x, 2)
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class MlpBlock(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Attention(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, mask):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        c = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj((a + c).transpose(1, 2).reshape(b, n, d))


class SdpaVariants(nn.Module):
    """scaled_dot_product_attention's other arguments: a float mask, an explicit scale, and
    grouped-query attention (fewer key/value heads than query heads)."""

    def forward(self, q, k, v, bias):
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)
        g = F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True)
        return a + g


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 4)
        self.b = nn.Linear(8, 3)

    def forward(self, x, y):
        h = torch.relu(self.a(x))
        return {"logits": self.b(x) * y.sum(), "aux": (h, [h.sigmoid(), x.mean(dim=1)])}


def cases(big):
    torch.manual_seed(0)
    yield "cnn_bn", randomize_norms(CnnBn()).eval(), (torch.randn(2, 3, 32, 32),), None, []
    yield "mlp_ln_gelu", MlpBlock().eval(), (torch.randn(2, 7, 64),), None, []
    mask = torch.rand(2, 1, 9, 9) > 0.3
    mask[..., 0] = True  # no row fully masked: torch gives NaN there, checked elsewhere
    yield "attention", Attention().eval(), (torch.randn(2, 9, 32), mask), None, []
    batch = torch.export.Dim("batch", min=1, max=16)
    # Traced at batch 3; the extra inputs are another batch inside the range.
    yield ("dynamic_batch", randomize_norms(CnnBn()).eval(), (torch.randn(3, 3, 32, 32),), ({0: batch},),
           [(torch.randn(5, 3, 32, 32),)])
    yield "nested_outputs", Nested().eval(), (torch.randn(4, 8), torch.randn(3)), None, []
    yield ("sdpa_variants", SdpaVariants(), (torch.randn(2, 4, 6, 8), torch.randn(2, 4, 7, 8), torch.randn(2, 4, 7, 8),
                                             torch.randn(6, 7)), None, [])
    # Batch and sequence length both dynamic: reshapes take sizes computed at run time (sym_size
    # and arithmetic on it in the graph).
    b, n = torch.export.Dim("b", min=1, max=8), torch.export.Dim("n", min=2, max=64)
    mask = torch.rand(2, 1, 9, 9) > 0.3
    mask[..., 0] = True
    mask5 = torch.rand(3, 1, 5, 5) > 0.3
    mask5[..., 0] = True
    yield ("dynamic_seq", Attention().eval(), (torch.randn(2, 9, 32), mask), ({0: b, 1: n}, {0: b, 2: n, 3: n}),
           [(torch.randn(3, 5, 32), mask5)])
    yield ("mobilenet_v2_small", randomize_norms(torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=10)).eval(),
           (torch.randn(1, 3, 64, 64),), None, [])
    if big:
        yield "mobilenet_v2", randomize_norms(torchvision.models.mobilenet_v2()).eval(), (torch.randn(1, 3, 224, 224),), None, []


# Programs lowered to core ATen (ExportedProgram.run_decompositions()), the IR ExecuTorch and
# other backends take: convolution, _native_batch_norm_legit_no_training, addmm, views.
CORE = {"cnn_bn_core": "cnn_bn", "mlp_core": "mlp_ln_gelu", "attention_core": "attention"}


def flat(out):
    return [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]


def save_legacy(ep, path):
    """The archive torch.export.save wrote before the PT2 archive format (torch 2.1 to 2.5):
    serialized_exported_program.json, serialized_state_dict.pt (torch.save of the weights),
    serialized_constants.pt, serialized_example_inputs.pt and version. Written from torch's own
    serializer, which later torch keeps."""
    from torch._export.serde.serialize import serialize, SCHEMA_VERSION
    art = serialize(ep)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("serialized_exported_program.json", art.exported_program)
        z.writestr("serialized_state_dict.pt", art.state_dict)
        z.writestr("serialized_constants.pt", art.constants)
        z.writestr("serialized_example_inputs.pt", art.example_inputs)
        z.writestr("version", ".".join(map(str, SCHEMA_VERSION)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--only")
    p.add_argument("--big", action="store_true")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    info = {"torch": torch.__version__, "cases": {}}
    all_cases = list(cases(args.big))
    all_cases += [(core, m, i, d, more) for core, src in CORE.items() for name, m, i, d, more in all_cases if name == src]
    for name, model, inputs, dynamic, more in all_cases:
        if only and name not in only:
            continue
        with torch.no_grad():
            ep = torch.export.export(model, inputs, dynamic_shapes=dynamic)
            if name in CORE:
                ep = ep.run_decompositions()
            path = os.path.join(args.out, name + ".pt2")
            torch.export.save(ep, path)
            sets = [inputs] + more
            for s, ins in enumerate(sets):
                tag = "" if s == 0 else "_%d" % s
                for i, t in enumerate(ins):
                    np.save(os.path.join(args.out, "%s%s_input%d.npy" % (name, tag, i)), t.numpy())
                for i, t in enumerate(flat(model(*ins))):
                    np.save(os.path.join(args.out, "%s%s_expected%d.npy" % (name, tag, i)), t.numpy())
            info["cases"][name] = {"inputs": len(inputs), "input_sets": len(sets),
                                   "files": sorted(zipfile.ZipFile(path).namelist())}
            if name == "cnn_bn":
                try:
                    save_legacy(ep, os.path.join(args.out, "cnn_bn_legacy.pt2"))
                except Exception as e:  # a torch whose serializer moved: say so
                    print("legacy archive not written:", e)
            if name == "mobilenet_v2":
                torch.jit.save(torch.jit.script(model), os.path.join(args.out, name + "_script.pt"))
        print(name, os.path.getsize(path), "bytes")
    with open(os.path.join(args.out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
