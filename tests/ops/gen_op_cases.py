#!/usr/bin/env python3
"""Writes the op test cases: inputs and PyTorch's outputs for every op tvk implements.

Run by CTest (fixture OpCases.generate) with Debian's torch 1.13 as
    /usr/bin/python3 gen_op_cases.py OUT_DIR
OUT_DIR/manifest.txt lists the cases, one token-separated line per item:
    case <schema name> <case name>
    arg tensor <file> <f32|i64|bool> <rank> <sizes...> | arg tensors <n> (<file> <dtype> <rank> <sizes...>)*
    arg int <v> | arg float <v> | arg bool <0|1> | arg none | arg str <s> | arg device cpu
    arg ints <n> <v...> | arg floats <n> <v...>
    out tensor ... | out int <v> | out float <v> | out ints <n> <v...>
    out meta <dtype> <rank> <sizes...> <strides...>     (uninitialised tensors: shape and strides only)
    expect_error <what PyTorch said>                    (instead of out lines: the call must throw)
    end
Tensor files hold raw little-endian data, row-major. Without torch the manifest holds one line,
"no-torch <reason>", and the C++ tests skip (or fail under TVK_REQUIRE_VULKAN=1).
"""
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_op_cases.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.endswith(".bin"):
            os.remove(os.path.join(out_dir, name))
    manifest = os.path.join(out_dir, "manifest.txt")
    try:
        import torch
    except ImportError as e:
        with open(manifest, "w") as f:
            f.write(f"no-torch {sys.executable} cannot import torch: {e}\n".replace("\n", " ") + "\n")
        print(f"no torch in {sys.executable}; wrote an empty manifest")
        return
    cases = Cases(torch, out_dir)
    generate(torch, cases)
    with open(manifest, "w") as f:
        f.write("\n".join(cases.lines) + "\n")
    print(f"{cases.count} cases for {len(cases.per_op)} ops in {manifest}")


class Cases:
    def __init__(self, torch, out_dir):
        self.torch = torch
        self.out_dir = out_dir
        self.lines = []
        self.count = 0
        self.files = 0
        self.per_op = {}

    def _tensor(self, t):
        torch = self.torch
        t = t.detach().contiguous()
        code = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}[t.dtype]
        name = f"t{self.files:06d}.bin"
        self.files += 1
        with open(os.path.join(self.out_dir, name), "wb") as f:
            f.write(t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes())
        return f"{name} {code} {t.dim()} " + " ".join(str(s) for s in t.shape)

    def _encode(self, v):
        torch = self.torch
        if v is None:
            return "none"
        if isinstance(v, torch.Tensor):
            return "tensor " + self._tensor(v)
        if isinstance(v, bool):
            return f"bool {int(v)}"
        if isinstance(v, int):
            return f"int {v}"
        if isinstance(v, float):
            return f"float {v!r}"
        if isinstance(v, str):
            return f"str {v}"
        if isinstance(v, torch.device):
            return "device cpu"
        if isinstance(v, (list, tuple)):
            if all(isinstance(x, torch.Tensor) for x in v) and v:
                return f"tensors {len(v)} " + " ".join(self._tensor(x) for x in v)
            if all(x is None or isinstance(x, torch.Tensor) for x in v) and v:  # Tensor?[]
                return f"opttensors {len(v)} " + " ".join("none" if x is None else self._tensor(x) for x in v)
            if all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                return f"ints {len(v)} " + " ".join(str(x) for x in v)
            if all(isinstance(x, float) for x in v):
                return f"floats {len(v)} " + " ".join(repr(x) for x in v)
        raise TypeError(f"cannot encode {v!r}")

    def _output(self, r, meta):
        torch = self.torch
        if isinstance(r, tuple):
            return [self._output(x, meta)[0] for x in r]
        if isinstance(r, torch.Tensor):
            if meta:
                code = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}[r.dtype]
                return [f"meta {code} {r.dim()} " + " ".join(str(s) for s in list(r.shape) + list(r.stride()))]
            return ["tensor " + self._tensor(r)]
        return [self._encode(r)]

    def _call(self, op, args, ref):
        """Runs PyTorch's op on copies of the args (in-place ops must not touch the saved inputs)."""
        torch = self.torch
        copied = [a.clone() if isinstance(a, torch.Tensor) else
                  [x.clone() for x in a] if isinstance(a, list) and a and isinstance(a[0], torch.Tensor) else a
                  for a in args]
        if ref is not None:
            return ref(*copied)
        base, _, overload = op[len("aten::"):].partition(".")
        schema = [s for s in torch._C._jit_get_schemas_for_operator(op.partition(".")[0])
                  if s.overload_name == overload][0]
        fn = getattr(getattr(torch.ops.aten, base), overload or "default")
        pos, kw = [], {}
        for a, value in zip(schema.arguments, copied):
            if a.kwarg_only:
                kw[a.name] = value
            else:
                pos.append(value)
        return fn(*pos, **kw)

    def add(self, op, *args, ref=None, meta=False):
        """A case: `args` positional in schema order (kwarg-only ones too); `ref` computes
        PyTorch's result when the aten op itself cannot be called by name."""
        result = self._call(op, args, ref)
        n = self.per_op.get(op, 0)
        self.per_op[op] = n + 1
        self.count += 1
        self.lines.append(f"case {op} {op.replace('aten::', '')}#{n}")
        self.lines += ["arg " + self._encode(a) for a in args]
        self.lines += ["out " + o for o in self._output(result, meta)]
        self.lines.append("end")

    def error(self, op, *args, ref=None):
        """An invalid call: PyTorch must raise, and so must tvk on every backend."""
        try:
            self._call(op, args, ref)
        except Exception as e:  # PyTorch raises RuntimeError, IndexError, ValueError...
            message = " ".join(str(e).split())[:120]
        else:
            raise AssertionError(f"PyTorch accepted the invalid case {op} {args}")
        n = self.per_op.get(op, 0)
        self.per_op[op] = n + 1
        self.count += 1
        self.lines.append(f"case {op} {op.replace('aten::', '')}#{n}-error")
        self.lines += ["arg " + self._encode(a) for a in args]
        self.lines.append(f"expect_error {message}")
        self.lines.append("end")


def generate(torch, c):
    torch.manual_seed(1234)
    r = torch.randn
    INT64_MAX = 9223372036854775807

    # ---- elementwise (shapes: 0-D, odd sizes, batch 1 and > 1, empty) ----
    shapes = [(), (1,), (7,), (3, 5), (2, 3, 5, 7), (1, 13, 9, 11), (4, 6, 1, 3), (2, 5, 3), (3, 1, 4, 1), (0, 3)]
    unary = ["relu", "relu6", "sigmoid", "tanh", "hardswish", "hardsigmoid", "silu"]
    for s in shapes:
        x = r(s) * 4
        for name in unary:
            c.add(f"aten::{name}", x)
            c.add(f"aten::{name}_", x)
        for name in ["neg", "exp", "reciprocal"]:
            c.add(f"aten::{name}", x)
            c.add(f"aten::{name}_", x)
        for name in ["sqrt", "rsqrt"]:  # on positive inputs
            c.add(f"aten::{name}", x.abs() + 0.1)
            c.add(f"aten::{name}_", x.abs() + 0.1)
        c.add("aten::clamp_min", x, 0.25)
        c.add("aten::clamp_min_", x, -0.5)
        for e in [2, 3, 0.5, -1, 0, 1.5]:  # negative bases: NaN for 0.5 and 1.5, as torch gives
            c.add("aten::pow.Tensor_Scalar", x, e)
        c.add("aten::gelu", x, "none")
        c.add("aten::gelu", x, "tanh")
        c.add("aten::clamp", x, -0.5, 1.25)
        c.add("aten::clamp", x, None, 0.3)
        c.add("aten::hardtanh", x, -1, 1)
        c.add("aten::hardtanh_", x, 0.0, 6.0)
        c.add("aten::add.Scalar", x, 2.5, -0.5)
        c.add("aten::sub.Scalar", x, 1.5, 2)
        c.add("aten::mul.Scalar", x, -1.75)
        c.add("aten::div.Scalar", x, 3.0)
        c.add("aten::dropout", x, 0.2, False)
        c.add("aten::feature_dropout", x, 0.5, False)
        # In-place forms (PyTorch's Vulkan suite tests them; models such as mobilenet_v3 call them).
        c.add("aten::clamp_", x, -0.5, 1.25)
        c.add("aten::clamp_", x, None, 0.3)
        c.add("aten::add_.Scalar", x, 2.5, -0.5)
        c.add("aten::sub_.Scalar", x, 1.5, 2)
        c.add("aten::mul_.Scalar", x, -1.75)
        c.add("aten::div_.Scalar", x, 3.0)
        c.add("aten::dropout_", x, 0.2, False)
        c.add("aten::feature_dropout_", x, 0.5, False)
    # NaN and infinities through every activation and clamp, as torch gives them (NaN stays NaN).
    special = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -1.5, 2.5, 7.0, -7.0, float("nan"), 1e30])
    for name in unary + ["gelu", "leaky_relu", "elu", "softplus", "mish", "hardshrink"]:
        c.add(f"aten::{name}", special.reshape(2, 5))
    for lo, hi in [(-0.5, 1.25), (None, 0.3), (0.0, None)]:
        c.add("aten::clamp", special, lo, hi)
        c.add("aten::clamp_", special, lo, hi)
    c.add("aten::hardtanh", special, -1, 1)
    c.add("aten::hardtanh_", special, 0.0, 6.0)
    c.add("aten::threshold", special, 0.5, 9.0)
    c.add("aten::max_pool2d", special.reshape(1, 1, 2, 5), [2, 2], [1, 1], [0, 0], [1, 1], False)
    c.add("aten::max_pool2d", special.reshape(1, 2, 1, 5), [1, 3], [1, 2], [0, 1], [1, 1], True)
    c.add("aten::adaptive_max_pool2d", special.reshape(1, 1, 2, 5), [1, 2])
    c.add("aten::maximum", special, special.flip(0))
    c.add("aten::minimum", special, special.flip(0))
    binary_shapes = [((2, 3, 5, 7), (2, 3, 5, 7)), ((2, 3, 5, 7), (7,)), ((2, 3, 5, 7), (3, 1, 1)), ((1, 5), (4, 1)),
                     ((), (3, 3)), ((6,), ()), ((2, 1, 4), (1, 3, 1)), ((0, 2), (2,)), ((1, 13, 9, 11), (1, 13, 1, 1)),
                     ((5, 1), (5, 1))]
    for sa, sb in binary_shapes:
        a, b = r(sa), r(sb)
        c.add("aten::add.Tensor", a, b, 0.5)
        c.add("aten::sub.Tensor", a, b, 2)
        c.add("aten::mul.Tensor", a, b)
        c.add("aten::div.Tensor", a, b.abs() + 0.5)
        for name in ["minimum", "maximum", "min.other", "max.other"]:
            c.add(f"aten::{name}", a, b)
        out_shape = torch.broadcast_shapes(sa, sb)
        if tuple(out_shape) == tuple(sa):
            c.add("aten::add_.Tensor", a, b, 1.5)
            c.add("aten::sub_.Tensor", a, b, 2)
            c.add("aten::mul_.Tensor", a, b)
            c.add("aten::div_.Tensor", a, b.abs() + 0.5)
    # chunk returns a Tensor[]: the manifest lists one output per piece (ShuffleNet splits channels).
    for shape, chunks, dim in [((2, 116, 7, 7), 2, 1), ((3, 10), 4, 1), ((5,), 3, 0), ((4, 6), 1, -1), ((2, 3), 5, 0),
                               ((0, 3), 2, 0), ((1, 7, 3), 3, -2)]:
        c.add("aten::chunk", r(shape), chunks, dim, ref=lambda t, n, d: tuple(torch.chunk(t, n, d)))
    c.error("aten::chunk", r(4), 0, 0)
    c.error("aten::chunk", r(4), 2, 1)
    c.error("aten::add.Tensor", r(2, 3), r(4))
    c.error("aten::add_.Tensor", r(3), r(2, 3))
    c.error("aten::mul_.Tensor", r(3), r(2, 3))  # the result would not fit self
    c.error("aten::clamp_", r(3), None, None)
    c.error("aten::clamp", r(3), None, None)
    c.error("aten::gelu", r(3), "fast")

    # ---- convolution ----
    conv_cases = [  # (input, weight, bias?, stride, padding, dilation, groups)
        ((1, 3, 7, 9), (5, 3, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((2, 6, 11, 8), (10, 6, 3, 3), False, [2, 2], [0, 0], [1, 1], 1),
        ((1, 4, 13, 10), (6, 4, 3, 3), True, [1, 1], [2, 2], [2, 2], 1),
        ((2, 6, 9, 9), (10, 3, 3, 3), True, [1, 1], [1, 1], [1, 1], 2),
        ((1, 4, 8, 7), (8, 2, 3, 3), True, [2, 1], [1, 0], [1, 1], 2),
        ((2, 7, 10, 11), (7, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 7),
        ((1, 3, 9, 8), (6, 1, 5, 5), False, [2, 2], [2, 2], [1, 1], 3),
        ((3, 13, 5, 6), (17, 13, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        ((1, 5, 12, 11), (3, 5, 5, 3), True, [3, 2], [1, 2], [1, 2], 1),
        ((2, 16, 15, 15), (32, 16, 3, 3), True, [2, 2], [1, 1], [1, 1], 1),
        ((1, 8, 6, 6), (8, 8, 3, 1), False, [1, 1], [1, 0], [1, 1], 1),
        ((1, 24, 9, 9), (24, 1, 3, 3), False, [2, 2], [1, 1], [1, 1], 24),
        # The kernel paths of the Vulkan backend (vulkan/ops/conv.h): pointwise over a plane of a
        # multiple of 4 pixels (vec4 GEMM), pointwise with stride (downsampling), groups of 16
        # output channels (blocked GEMM per group), depthwise 5x5 with dilation and batch 2, a
        # 7x7 stem, and channel counts that are not multiples of the 8-channel block.
        ((2, 20, 8, 6), (12, 20, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        ((1, 36, 4, 4), (41, 36, 1, 1), False, [1, 1], [0, 0], [1, 1], 1),
        ((2, 16, 9, 9), (24, 16, 1, 1), False, [2, 2], [0, 0], [1, 1], 1),
        ((1, 8, 7, 7), (32, 4, 3, 3), True, [1, 1], [1, 1], [1, 1], 2),
        ((2, 12, 11, 13), (12, 1, 5, 5), True, [1, 1], [4, 4], [2, 2], 12),
        ((2, 10, 12, 12), (10, 1, 3, 3), True, [2, 2], [1, 1], [1, 1], 10),
        ((1, 3, 23, 21), (16, 3, 7, 7), True, [2, 2], [3, 3], [1, 1], 1),
        ((1, 40, 6, 5), (20, 40, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        # Winograd F(4,3) (3x3, stride 1, 16+ channels on both sides): channel counts off the
        # 8-channel block, batch 3, no padding, partial tiles at both edges, padding 2, a plane of
        # 64+ tiles (not folded across images), and a single partial tile.
        ((3, 19, 13, 10), (21, 19, 3, 3), False, [1, 1], [0, 0], [1, 1], 1),
        ((2, 16, 17, 9), (16, 16, 3, 3), True, [1, 1], [2, 2], [1, 1], 1),
        ((1, 16, 34, 31), (24, 16, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((2, 32, 3, 3), (17, 32, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        # GPU kernels at batch 1 (conv2d_split: 1x1 from 64 input channels, larger kernels from
        # 32; conv2d_dw_pixel): a plane of 49 pixels and a partial channel block, more input
        # channels than one pass of the work group (4 x 256 for 1x1, 2 x 256 for 3x3), stride 2,
        # padding at every edge, dilation, a 5x5 kernel without a bias, rows of whole quads.
        ((1, 70, 7, 7), (21, 70, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        ((1, 1100, 4, 4), (9, 1100, 1, 1), False, [1, 1], [0, 0], [1, 1], 1),
        ((1, 64, 9, 9), (16, 64, 1, 1), True, [2, 2], [0, 0], [1, 1], 1),
        ((1, 33, 9, 7), (19, 33, 3, 3), True, [2, 2], [1, 1], [1, 1], 1),
        ((1, 600, 5, 5), (10, 600, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((1, 48, 10, 10), (24, 48, 3, 3), True, [1, 1], [2, 2], [2, 2], 1),
        ((1, 32, 8, 8), (8, 32, 5, 5), False, [1, 1], [2, 2], [1, 1], 1),
        ((1, 64, 7, 7), (64, 64, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((1, 19, 7, 7), (19, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 19),
        ((2, 8, 6, 8), (8, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 8),  # rows of whole quads
        # conv2d_split's filter rows as aligned vec4s (3 wide, horizontal stride 1 and padding 1,
        # rows of whole quads): quads at both ends of a row and between them; one quad per row
        # (both ends at once); a 5x3 kernel with vertical stride, padding and dilation.
        ((1, 40, 8, 12), (20, 40, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((1, 32, 5, 4), (9, 32, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ((1, 36, 9, 8), (12, 36, 5, 3), False, [2, 1], [2, 1], [2, 1], 1),
        # A product large enough for gemm_tile128 (64 output channels, 512 pixels over the batch):
        # the GEMM methods' one product over the batch (column blocks) and the implicit GEMM.
        ((2, 8, 16, 16), (64, 8, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
    ]
    for xs, ws, has_b, st, pad, dil, g in conv_cases:
        x, w = r(xs), r(ws)
        b = r(ws[0]) if has_b else None
        c.add("aten::conv2d", x, w, b, st, pad, dil, g)
        c.add("aten::convolution", x, w, b, st, pad, dil, False, [0, 0], g)
        c.add("aten::_convolution", x, w, b, st, pad, dil, False, [0, 0], g, False, False, True, True)
        c.add("aten::_convolution.deprecated", x, w, b, st, pad, dil, False, [0, 0], g, False, False, True)
    # ---- roll and constant padding (swin_t's shifted windows) ----
    c.add("aten::roll", r(2, 5, 7, 3), [-2, 3], [1, 2])
    c.add("aten::roll", r(4, 6), [9], [0])  # a shift past the size
    c.add("aten::roll", r(3, 4, 5), [7])  # no dims: the flattened tensor
    c.add("aten::roll", r(3, 4), [0, -4], [0, 1])  # nothing moves
    c.add("aten::constant_pad_nd", r(2, 3, 4, 5), [1, 2, 0, 3], 0.5)
    c.add("aten::constant_pad_nd", r(2, 6, 5), [-1, 2, 1, -2])  # negative pads crop
    c.add("aten::pad", r(1, 7, 7, 8), [0, 0, 0, 1, 0, 1])  # swin_t's pad of (B, H, W, C) to whole windows
    c.add("aten::pad", r(3, 4), [2, 1], "constant", -1.0)
    c.error("aten::roll", r(3, 4), [1, 2], [0])  # shifts and dims differ in length
    c.error("aten::constant_pad_nd", r(3, 4), [1, 2, 3])  # not pairs
    c.error("aten::constant_pad_nd", r(3, 4), [-3, -2])  # negative size
    c.add("aten::conv2d", r(3, 7, 9), r(5, 3, 3, 3), r(5), [1], [1], [1], 1)  # unbatched, one-value lists
    c.add("aten::conv2d", r(16, 7, 9), r(16, 16, 3, 3), r(16), [1], [1], [1], 1)  # unbatched Winograd
    c.add("aten::conv2d", r(2, 3, 6, 5), r(4, 3, 2, 2))  # defaults
    tconv_cases = [  # (input, weight [Cin, Cout/g, kh, kw], bias?, stride, padding, output_padding, groups, dilation)
        ((1, 4, 5, 6), (4, 3, 3, 3), True, [2, 2], [1, 1], [1, 1], 1, [1, 1]),
        ((2, 3, 4, 4), (3, 5, 2, 2), False, [2, 2], [0, 0], [0, 0], 1, [1, 1]),
        ((1, 6, 5, 4), (6, 2, 3, 3), True, [1, 1], [1, 1], [0, 0], 2, [1, 1]),
        ((2, 4, 3, 5), (4, 3, 3, 2), True, [3, 2], [1, 0], [2, 1], 1, [1, 1]),
        ((1, 5, 6, 6), (5, 2, 3, 3), True, [2, 2], [2, 2], [0, 1], 1, [2, 2]),
        ((1, 6, 4, 4), (6, 1, 3, 3), True, [2, 2], [1, 1], [1, 1], 6, [1, 1]),
        ((3, 2, 5, 3), (2, 7, 1, 1), True, [1, 1], [0, 0], [0, 0], 1, [1, 1]),
        ((1, 8, 7, 7), (8, 4, 4, 4), False, [2, 2], [1, 1], [0, 0], 2, [1, 1]),
        ((2, 3, 6, 5), (3, 4, 3, 3), True, [1, 2], [0, 1], [0, 1], 1, [1, 1]),
        ((1, 9, 3, 3), (9, 3, 5, 5), True, [3, 3], [2, 2], [2, 2], 3, [1, 1]),
    ]
    for xs, ws, has_b, st, pad, opad, g, dil in tconv_cases:
        x, w = r(xs), r(ws)
        b = r(ws[1] * g) if has_b else None
        c.add("aten::conv_transpose2d.input", x, w, b, st, pad, opad, g, dil)
        c.add("aten::convolution", x, w, b, st, pad, dil, True, opad, g)
        c.add("aten::_convolution", x, w, b, st, pad, dil, True, opad, g, False, False, True, True)
    c.add("aten::conv_transpose2d.input", r(4, 5, 6), r(4, 3, 3, 3), None, [2], [1], [1], 1, [1])
    c.error("aten::conv2d", r(3, 224, 224)[None, None, 0], r(4, 3, 3, 3))  # 2-D input
    c.error("aten::conv2d", r(1, 6, 8, 8), r(4, 4, 3, 3), None, [1, 1], [0, 0], [1, 1], 4)  # groups vs channels
    c.error("aten::conv2d", r(1, 6, 8, 8), r(5, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], 3)  # groups vs Cout
    c.error("aten::conv2d", r(1, 3, 8, 8), r(4, 3, 3, 3), r(5))  # bias size
    c.error("aten::conv2d", r(1, 3, 2, 2), r(4, 3, 3, 3))  # kernel larger than input
    c.error("aten::conv2d", r(1, 3, 8, 8), r(4, 3, 3))  # 3-D weight
    c.error("aten::convolution", r(1, 3, 8, 8), r(4, 3, 3, 3), None, [0, 1], [0, 0], [1, 1], False, [0, 0], 1)

    # ---- pooling ----
    pool_inputs = [(1, 3, 7, 9), (2, 5, 11, 8), (1, 1, 6, 6), (3, 7, 9), (2, 4, 13, 13), (1, 6, 5, 12)]
    max_cases = [([3, 3], [2, 2], [1, 1], [1, 1], False), ([2, 2], [], [0, 0], [1, 1], False),
                 ([3, 3], [2, 2], [0, 0], [1, 1], True), ([3, 2], [1, 2], [1, 1], [2, 1], False),
                 ([2, 3], [2, 1], [1, 0], [2, 2], True), ([3], [2], [1], [1], True)]
    for i, xs in enumerate(pool_inputs):
        x = r(xs)
        k, st, pad, dil, ceil = max_cases[i % len(max_cases)]
        c.add("aten::max_pool2d", x, k, st, pad, dil, ceil)
        c.add("aten::max_pool2d", x, [2, 2])
        k, st, pad, _, ceil = max_cases[(i + 2) % len(max_cases)]
        c.add("aten::avg_pool2d", x, k, st, pad, ceil, True, None)
        c.add("aten::avg_pool2d", x, k, st, pad, ceil, False, None)
        c.add("aten::avg_pool2d", x, [3, 3], [2, 2], [1, 1], True, i % 2 == 0, 5 if i % 3 == 0 else None)
    c.add("aten::avg_pool2d", r(1, 2, 5, 5), [2, 2], [], [0, 0], True, False)
    # The models' pools (pool2d_tile: rows of 4 outputs, a last partial quad), and windows past
    # the tile kernel's 7x7 (the generic loop).
    c.add("aten::max_pool2d", r(1, 8, 111, 111), [3, 3], [2, 2], [0, 0], [1, 1], True)  # squeezenet1_1
    c.add("aten::max_pool2d", r(2, 4, 112, 112), [3, 3], [2, 2], [1, 1], [1, 1], False)  # resnet18
    c.add("aten::max_pool2d", r(1, 3, 30, 29), [5, 4], [1, 3], [2, 1], [1, 2], False)
    c.add("aten::avg_pool2d", r(2, 3, 14, 15), [7, 7], [1, 1], [3, 3], False, True, None)
    c.add("aten::max_pool2d", r(1, 2, 20, 20), [9, 9], [1, 1], [4, 4], [1, 1], False)
    c.add("aten::avg_pool2d", r(1, 2, 20, 20), [3, 8], [2, 8], [1, 0], True, False, None)
    c.error("aten::max_pool2d", r(1, 3, 8, 8), [2, 2], [2, 2], [2, 2])  # padding > half the kernel
    c.error("aten::max_pool2d", r(8, 8), [2, 2])
    c.error("aten::avg_pool2d", r(1, 3, 8, 8), [3, 3], [1, 1], [2, 2])
    c.error("aten::avg_pool2d", r(1, 3, 8, 8), [2, 2], [2, 2], [0, 0], False, True, 0)
    adaptive = [((1, 3, 7, 7), [1, 1]), ((2, 5, 7, 7), [3, 3]), ((1, 4, 11, 9), [5, 4]), ((2, 3, 4, 5), [9, 7]),
                ((6, 9, 10), [2, 3]), ((1, 16, 13, 13), [7, 7]), ((3, 2, 1, 1), [2, 2]), ((1, 6, 8, 12), [1, 5]),
                ((2, 7, 5, 3), [5, 3]), ((1, 1, 17, 17), [6, 6]),
                # windows of thousands of values (global pooling; PoolMethod::Group's case), one
                # of them past lavapipe's 65535 loop iterations
                ((2, 8, 56, 56), [1, 1]), ((2, 5, 33, 40), [2, 3]), ((1, 1, 300, 300), [1, 1])]
    for xs, size in adaptive:
        x = r(xs)
        c.add("aten::adaptive_avg_pool2d", x, size)
        c.add("aten::_adaptive_avg_pool2d", x, size)
        c.add("aten::adaptive_max_pool2d", x, size)
    c.add("aten::adaptive_avg_pool2d", r(2, 3), [1, 1])  # (1, 1) is a mean over the last two dims
    c.error("aten::_adaptive_avg_pool2d", r(2, 3), [1, 1])
    c.error("aten::adaptive_avg_pool2d", r(2, 3), [2, 2])
    c.error("aten::adaptive_max_pool2d", r(1, 3, 0, 4), [1, 1])
    upsample = [((1, 3, 4, 5), [8, 10], None, None), ((2, 2, 3, 3), [3, 3], None, None),
                ((1, 4, 5, 7), [7, 12], None, None), ((1, 1, 6, 6), [4, 3], None, None),
                ((2, 3, 5, 4), [8, 6], 1.7, 1.5), ((1, 2, 3, 7), [9, 7], 3.0, 1.0),
                ((1, 5, 7, 3), [3, 9], 0.5, 3.3), ((3, 1, 2, 2), [5, 5], None, None),
                ((1, 6, 9, 9), [18, 18], 2.0, 2.0), ((1, 3, 11, 13), [17, 19], None, None)]
    for xs, size, sh, sw in upsample:
        c.add("aten::upsample_nearest2d", r(xs), size, sh, sw)
    vec = [((1, 3, 4, 5), None, [2.0, 2.0]), ((2, 2, 3, 3), [5, 7], None), ((1, 4, 5, 7), None, [1.7, 1.3]),
           ((1, 1, 6, 6), None, [0.5, 0.5]), ((2, 3, 5, 4), None, [3.0, 1.5]), ((1, 2, 3, 7), [6, 14], None),
           ((1, 5, 7, 3), None, [1.0, 2.5]), ((3, 1, 2, 2), None, [2.2, 2.7]), ((1, 6, 9, 9), [9, 9], None),
           ((1, 3, 11, 13), None, [0.75, 1.25])]
    for xs, size, scales in vec:
        c.add("aten::upsample_nearest2d.vec", r(xs), size, scales)
    c.error("aten::upsample_nearest2d.vec", r(1, 3, 4, 4), None, None)
    c.error("aten::upsample_nearest2d.vec", r(1, 3, 4, 4), [8, 8], [2.0, 2.0])
    # Bilinear (segmentation heads), both corner conventions, up and down, with and without scales.
    for align in (False, True):
        for xs, size, sh, sw in upsample:
            c.add("aten::upsample_bilinear2d", r(xs), size, align, sh, sw)
        for xs, size, scales in vec:
            c.add("aten::upsample_bilinear2d.vec", r(xs), size, align, scales)
    c.add("aten::upsample_bilinear2d", r(1, 2, 1, 1), [3, 4], True)  # one source pixel
    c.add("aten::upsample_bilinear2d", r(1, 2, 5, 6), [1, 1], True)  # one output pixel
    c.error("aten::upsample_bilinear2d.vec", r(1, 3, 4, 4), None, False, None)
    c.error("aten::upsample_bilinear2d", r(3, 4, 4), [8, 8], False)

    # ---- matrix products ----
    mm_shapes = [(1, 1, 1), (3, 5, 7), (1, 13, 9), (8, 16, 4), (17, 3, 11), (2, 64, 3), (5, 1, 6), (9, 10, 1),
                 (31, 33, 35), (4, 129, 2),
                 # 16+ rows take the tiled kernel: several tiles, K and columns off its 16 and 4
                 (70, 37, 130), (130, 20, 67), (16, 1, 5), (64, 16, 64),
                 # gemm_tile128 (GPU shapes, fp32): 64+ rows and 256+ columns
                 (96, 40, 260)]
    for n, m, p in mm_shapes:
        a, b = r(n, m), r(m, p)
        c.add("aten::mm", a, b)
        c.add("aten::addmm", r(p), a, b, 1, 1)
        c.add("aten::addmm", r(n, p), a, b, 0.5, 2.0)
        c.add("aten::addmm", r(n, 1), a, b, 1.5, -1)
        c.add("aten::linear", a, r(p, m), r(p))
        c.add("aten::linear", a, r(p, m), None)
        c.add("aten::bmm", r(3, n, m), r(3, m, p))
    c.add("aten::addmm", torch.full((4, 5), float("nan")), r(4, 3), r(3, 5), 0, 1)  # beta 0 ignores NaN
    c.add("aten::linear", r(7), r(5, 7), r(5))
    c.add("aten::linear", r(2, 3, 9), r(4, 9), r(4))
    c.add("aten::linear", r(2, 1, 3, 6), r(5, 6), None)
    c.add("aten::linear", r(2, 20, 9), r(70, 9), r(70))
    c.add("aten::linear", r(2, 20, 12), r(70, 12), r(70))  # 4 k per texel from both operands
    matmul = [((5,), (5,)), ((4,), (4, 3)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
              ((2, 1, 3, 4), (5, 4, 2)), ((7, 9), (9, 3)), ((2, 3, 4), (2, 4, 6)), ((4,), (2, 4, 3)),
              ((1, 2, 5, 3), (3,)), ((3, 1, 2, 3), (1, 4, 3, 2)),
              ((2, 3, 40, 20), (20, 70)), ((3, 33, 8), (3, 8, 17)), ((2, 17, 5), (1, 5, 66))]
    for sa, sb in matmul:
        c.add("aten::matmul", r(sa), r(sb))
    c.error("aten::mm", r(3, 4), r(5, 6))
    c.error("aten::mm", r(3), r(3, 2))
    c.error("aten::bmm", r(2, 3, 4), r(3, 4, 5))
    c.error("aten::addmm", r(3, 3), r(2, 4), r(4, 5))
    c.error("aten::linear", r(3, 4), r(5, 6))
    c.error("aten::matmul", r(3, 4), r(3, 4))

    # ---- normalization ----
    bn_shapes = [(1, 3, 7, 9), (2, 5, 4, 6), (4, 6), (2, 7, 5), (1, 16, 3, 3), (3, 1, 2, 2), (2, 13, 1, 1),
                 (1, 32, 5, 7), (5, 3), (2, 9, 8, 3)]
    for i, s in enumerate(bn_shapes):
        ch = s[1]
        x, w, b, mean, var = r(s), r(ch), r(ch), r(ch), torch.rand(ch) + 0.5
        c.add("aten::batch_norm", x, w, b, mean, var, False, 0.1, 1e-5, True)
        c.add("aten::batch_norm", x, None if i % 2 else w, None if i % 3 == 0 else b, mean, var, False, 0.1,
              1e-3, False)
    c.error("aten::batch_norm", r(2, 3, 4, 4), r(4), r(4), r(4), torch.rand(4), False, 0.1, 1e-5, True)
    ln = [((2, 5), [5]), ((3, 4, 7), [7]), ((2, 3, 4, 5), [4, 5]), ((1, 9), [9]), ((2, 6, 3), [6, 3]),
          ((4, 1), [1]), ((2, 2, 33), [33]), ((3, 5, 5), [5]), ((1, 3, 8, 8), [3, 8, 8]), ((7,), [7]),
          # rows longer than 65535 values: lavapipe stops a loop after 65535 iterations
          ((2, 3, 300, 80), [3, 300, 80])]
    for i, (s, norm) in enumerate(ln):
        x = r(s) * 3 + 1
        c.add("aten::layer_norm", x, norm, r(norm), r(norm), 1e-5, True)
        c.add("aten::layer_norm", x, norm, None, r(norm) if i % 2 else None, 1e-3, True)
    c.error("aten::layer_norm", r(2, 3, 4), [3], None, None, 1e-5, True)

    # ---- reductions ----
    means = [((1, 3, 7, 9), [2, 3], False), ((2, 5, 4, 6), [2, 3], True), ((2, 5, 4, 6), [-1], False),
             ((3, 7), [0], True), ((2, 3, 4, 5), [1, -1], False), ((2, 3, 4, 5), [0, 2], True), ((6,), [0], False),
             ((2, 3, 4), [], False), ((1, 16, 13, 13), [-2, -1], True), ((4, 1, 3), [1], False),
             ((2, 3, 4), None, True), ((2, 3, 150, 160), [1, 2, 3], False)]
    for s, dims, keep in means:
        c.add("aten::mean.dim", r(s), dims, keep, None)
    for s in [(1, 3, 7, 9), (5,), (), (2, 3, 4), (13, 17), (1, 1), (3, 1, 5), (2, 2, 2, 2, 2), (9, 11), (64,),
              (3, 200, 150)]:
        c.add("aten::mean", r(s), None)
    c.error("aten::mean.dim", r(2, 3), [2], False, None)
    c.error("aten::mean.dim", r(2, 3), [1, -1], False, None)
    # sum: the same shapes as mean; int64 and bool sums are int64 (the CPU's), dtype= converts.
    for s, dims, keep in means:
        c.add("aten::sum.dim_IntList", r(s) - 0.5, dims, keep, None)
    for s in [(1, 3, 7, 9), (5,), (), (2, 3, 4), (3, 200, 150)]:
        c.add("aten::sum", r(s) - 0.5, None)
    c.add("aten::sum", torch.tensor([[3, -7], [2**40, 5]]), None)
    c.add("aten::sum", torch.tensor([True, False, True]), None)
    c.add("aten::sum.dim_IntList", torch.tensor([[3, -7, 1], [4, 5, 6]]), [1], True, None)
    c.add("aten::sum.dim_IntList", torch.tensor([[True, False], [True, True]]), [0], False, None)
    c.add("aten::sum", torch.tensor([1, 2, 3]), 6)  # dtype=float32
    c.error("aten::sum.dim_IntList", r(2, 3), [2], False, None)
    soft = [((2, 5), 1), ((2, 5), 0), ((3, 4, 7), -1), ((2, 3, 4, 5), 1), ((1, 1000), -1), ((7,), 0), ((), 0),
            ((4, 1, 3), 1), ((2, 3, 5, 7), -3), ((3, 33), 1), ((3, 250, 197), -1),
            ((1, 70000), -1)]  # past lavapipe's 65535-iteration loop cap
    for s, d in soft:
        x = r(s) * 5
        c.add("aten::softmax.int", x, d, None)
        c.add("aten::log_softmax.int", x, d, None)
    c.error("aten::softmax.int", r(2, 3), 2, None)

    # ---- shape and view ops ----
    x4 = r(2, 3, 5, 7)
    views = [(x4, [6, 35]), (x4, [-1]), (x4, [2, -1, 7]), (r(12), [3, 4]), (r(3, 4), [4, 3]), (r(1, 13, 1, 1), [1, 13]),
             (r(5), [1, 5, 1]), (r(()), [1]), (r(2, 8), [2, 2, 2, 2]), (r(0, 4), [-1, 2])]
    for t, size in views:
        c.add("aten::view", t, size)
        c.add("aten::reshape", t, size)
    c.error("aten::view", r(2, 3), [4, 2])
    c.error("aten::reshape", r(2, 3), [-1, -1])
    flat = [((2, 3, 5, 7), 1, -1), ((2, 3, 5, 7), 0, -1), ((2, 3, 5, 7), 1, 2), ((4, 6), 0, 0), ((), 0, -1),
            ((1, 1280, 1, 1), 1, -1), ((3, 4, 5), -2, -1), ((2, 3, 4), 0, 1), ((7,), 0, 0), ((2, 1, 3, 1), 2, 3)]
    for s, a, b in flat:
        c.add("aten::flatten.using_ints", r(s), a, b)
    c.error("aten::flatten.using_ints", r(2, 3, 4), 2, 1)
    for s, d in [((2, 3), 0), ((2, 3), 2), ((2, 3), -1), ((2, 3), -3), ((), 0), ((5,), 1), ((1, 3, 4, 5), 4),
                 ((4, 5, 6), 1), ((7,), -2), ((2, 3, 4), -4)]:
        c.add("aten::unsqueeze", r(s), d)
    c.error("aten::unsqueeze", r(2, 3), 3)
    for s, d, i in [((2, 3, 4), 0, 1), ((2, 3, 4), 1, -1), ((2, 3, 4), -1, 2), ((5,), 0, 4), ((3, 1, 5), 1, 0),
                    ((4, 5, 6, 7), 2, -6), ((1, 9), 1, 8), ((6, 2), -2, 5), ((2, 3, 4, 5), 3, 0), ((7, 7), 0, -7)]:
        c.add("aten::select.int", r(s), d, i)
    c.error("aten::select.int", r(2, 3), 1, 3)
    c.error("aten::select.int", r(2, 3), 2, 0)
    slices = [((10,), 0, 2, 8, 1), ((10,), 0, None, None, 3), ((4, 9), 1, -5, -1, 2), ((4, 9), 0, 1, INT64_MAX, 1),
              ((3, 5, 7), -1, 0, 100, 4), ((3, 5, 7), 1, 3, 2, 1), ((2, 6, 4, 4), 1, -100, 4, 2),
              ((5, 5), 0, 4, None, 1), ((2, 3, 8), 2, 1, -1, 3), ((6, 3), 0, -2, None, 1)]
    for s, d, a, b, st in slices:
        c.add("aten::slice.Tensor", r(s), d, a, b, st)
    c.error("aten::slice.Tensor", r(4), 0, 0, 4, 0)
    for s, a, b in [((2, 3), 0, 1), ((2, 3, 4), 0, 2), ((2, 3, 4), -1, -2), ((1, 3, 5, 7), 1, 2), ((5,), 0, 0),
                    ((2, 3, 4, 5), 1, 3), ((4, 4), 1, 1), ((), 0, -1), ((3, 1, 2), 2, 0), ((2, 2, 3, 3, 2), 1, 4)]:
        x = r(s)
        c.add("aten::transpose.int", x, a, b)
        c.add("aten::transpose_", x, a, b)
    c.error("aten::transpose.int", r(2, 3), 0, 2)
    for s, dims in [((2, 3), [1, 0]), ((2, 3, 4), [2, 0, 1]), ((2, 3, 4, 5), [0, 2, 3, 1]), ((2, 3, 4, 5), [0, 3, 1, 2]),
                    ((5,), [0]), ((1, 2, 3), [-1, -2, -3]), ((3, 1, 4), [1, 2, 0]), ((2, 3, 4, 5, 2), [4, 3, 2, 1, 0]),
                    ((), []), ((4, 4), [0, 1])]:
        c.add("aten::permute", r(s), dims)
    c.error("aten::permute", r(2, 3), [0, 0])
    for s in [(2, 3), (5,), (), (1, 7), (7, 1), (4, 4), (3, 9), (0, 2), (13, 5), (2, 2)]:
        c.add("aten::t", r(s))
    c.error("aten::t", r(2, 3, 4))
    for s, size in [((3, 1), [3, 4]), ((1,), [5]), ((2, 1, 3), [2, 4, 3]), ((3,), [2, 3]), ((1, 1), [-1, 6]),
                    ((4, 1), [2, 4, 5]), ((), [3, 2]), ((2, 3), [2, 3]), ((1, 3, 1), [2, -1, 4]), ((5, 1, 1), [5, 2, 2])]:
        c.add("aten::expand", r(s), size, False)
    c.error("aten::expand", r(2, 3), [3, 3], False)
    # as_strided: attention's head split (q, k transposed, v out of one [B, L, 3E] projection),
    # overlapping windows, broadcast (stride 0), a default offset; out of bounds and negative
    # strides are errors.
    qkv = r(2, 5, 3 * 8)
    for size, stride, offset in [([2, 2, 5, 4], [5 * 24, 4, 24, 1], 0), ([2, 2, 4, 5], [5 * 24, 4, 1, 24], 8),
                                 ([2, 2, 5, 4], [5 * 24, 4, 24, 1], 16), ([3, 4], [2, 1], 1), ([4, 3], [0, 1], None)]:
        c.add("aten::as_strided", qkv, size, stride, offset)
    c.add("aten::as_strided", r(10), [3, 3], [3, 1], None)
    c.error("aten::as_strided", r(10), [4, 3], [3, 1], None)
    c.error("aten::as_strided", r(10), [3], [-1], 9)
    for s in [(2, 3), (1, 3, 5, 7), (), (4,), (0, 3), (2, 1, 2), (3, 3, 3), (1, 1, 1, 1), (6, 5), (2, 3, 4, 5, 2)]:
        c.add("aten::contiguous", r(s), 0)
    cats = [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 5)], 1), ([(2, 3), (2, 5)], -1), ([(1, 3, 4, 5), (1, 5, 4, 5), (1, 1, 4, 5)], 1),
            ([(2, 3, 4)] * 5, 2), ([(3,), (0,), (4,)], 0), ([(2, 3), (0,), (1, 3)], 0), ([(1, 16, 7, 7), (1, 16, 7, 7)], 1),
            ([(3, 1, 5)], 0), ([(2, 2, 3, 1), (2, 2, 3, 2), (2, 2, 3, 3)], 3)]
    for shapes_, d in cats:
        ts = [r(s) for s in shapes_]
        c.add("aten::cat", ts, d)
        c.add("aten::_cat", ts, d, ref=torch.cat)
    c.error("aten::cat", [r(2, 3), r(2, 4)], 0)
    c.error("aten::cat", [r(2, 3), r(2, 3)], 2)
    c.error("aten::cat", [r(2, 3), r(2, 3, 1)], 0)

    # ---- metadata, scalars, factories ----
    meta_shapes = [(), (1,), (7,), (3, 5), (2, 3, 5, 7), (0, 3), (1, 13, 9, 11), (4, 6, 1, 3), (2, 5, 3), (3, 1, 4, 1)]
    for i, s in enumerate(meta_shapes):
        x = r(s)
        c.add("aten::size", x, ref=lambda t: list(t.shape))
        if x.dim():
            c.add("aten::size.int", x, -1 if i % 2 else 0, ref=lambda t, d: t.size(d))
        c.add("aten::dim", x, ref=lambda t: t.dim())
        c.add("aten::numel", x, ref=lambda t: t.numel())
    c.add("aten::size.int", r(2, 3, 4), 1, ref=lambda t, d: t.size(d))
    c.error("aten::size.int", r(2, 3), 2, ref=lambda t, d: t.size(d))
    for v in [2.7, -2.7, 0.0, 1e6, -3.0, 7.5, 0.49, -0.51, 100.0, 3.999]:
        t = torch.tensor([v]) if v > 0 else torch.tensor(v)
        c.add("aten::Int.Tensor", t, ref=lambda a: int(a))
        c.add("aten::Float.Tensor", t, ref=lambda a: float(a))
    c.add("aten::Int.Tensor", torch.tensor([[5]], dtype=torch.int64), ref=lambda a: int(a))
    c.error("aten::Int.Tensor", r(2), ref=lambda a: int(a))
    cpu = torch.device("cpu")
    sizes = [[2, 3], [5], [], [1, 3, 7, 9], [0, 4], [2, 1, 3], [4, 4], [3, 5, 2], [1], [6, 7]]
    for i, s in enumerate(sizes):
        dtype = [None, 6, 4][i % 3]
        c.add("aten::zeros", s, dtype, None, cpu if i % 2 else None, None)
        c.add("aten::ones", s, dtype, None, cpu if i % 2 else None, None)
        c.add("aten::empty.memory_format", s, dtype, None, cpu if i % 2 else None, None, None, meta=True)
        strides = list(reversed([1] + [x + 1 for x in s[:0:-1]]))[:len(s)] if s else []
        c.add("aten::empty_strided", s, strides, dtype, None, cpu if i % 2 else None, None, meta=True)
    for i, s in enumerate(sizes):
        x = torch.randn(s)
        dtype = [None, 6, 4][i % 3]
        c.add("aten::zeros_like", x, dtype, None, cpu if i % 2 else None, None, None)
        c.add("aten::ones_like", x, dtype, None, cpu if i % 2 else None, None, None)
    for i, s in enumerate(sizes):
        x = torch.randn(s)
        c.add("aten::to.prim_Device", x, cpu if i % 2 else None, None, False, i % 3 == 0,
              ref=lambda t, d, dt, nb, cp: t.to(d, copy=cp) if d is not None else t)
        c.add("aten::to.device", x, cpu, 6, False, False, None, ref=lambda t, d, dt, nb, cp, mf: t.to(d))
        # x.to(x.dtype) (a dynamic-quantized linear's output): the tensor, or a copy of it.
        c.add("aten::to.dtype", x, 6, False, i % 2 == 0, None, ref=lambda t, dt, nb, cp, mf: t.to(torch.float32, copy=cp))
    c.error("aten::dropout", r(3), 1.5, False)

    # ---- selection, sorting, indexing: CPU kernels (the CPU fallback runs them for Vulkan tensors) ----
    # randn values are distinct, so sorted orders are unique (torch leaves the order of ties open).
    for s, d in [((2, 7), 1), ((5,), 0), ((3, 4, 6), 0), ((3, 4, 6), -1), ((1, 9), 1), ((2, 3, 5), 1)]:
        x = r(*s)
        for desc in (False, True):
            c.add("aten::sort", x, d, desc, ref=lambda t, d, de: tuple(torch.sort(t, d, de)))
            c.add("aten::argsort", x, d, desc)
        c.add("aten::topk", x, min(3, s[d]), d, True, True, ref=lambda t, k, d, l, so: tuple(torch.topk(t, k, d, l, so)))
        c.add("aten::topk", x, 1, d, False, True, ref=lambda t, k, d, l, so: tuple(torch.topk(t, k, d, l, so)))
        c.add("aten::cumsum", x, d, None)
        c.add("aten::argmax", x, d, False)
        c.add("aten::argmax", x, d, True)
    c.add("aten::argmax", r(3, 4), None, False)
    nan = float("nan")
    c.add("aten::argmax", torch.tensor([[1., 3., 3., 2.], [nan, 1., nan, 0.], [-1., -1., -1., -1.]]), 1, False)
    c.add("aten::argmax", r(2, 5000), 1, False)  # more values than a work group has invocations
    c.add("aten::argmax", r(2, 3, 4), None, True)
    c.add("aten::argmax", torch.tensor(2.5), None, False)
    # argmin, amax / amin over dims and max.dim / min.dim: NaN wins all of them, ties keep the
    # first index; int64 inputs; more values than a work group; an empty reduced dim is an error.
    ties = torch.tensor([[1., 3., 3., 2.], [nan, 1., nan, 0.], [-1., -1., -1., -1.], [2., nan, -5., -5.]])
    values_indices = lambda f: (lambda *a: tuple(f(*a)))
    for x, d in [(r(2, 7), 1), (r(3, 4, 6), 0), (r(3, 4, 6), -1), (ties, 1), (ties, 0), (r(2, 5000), 1),
                 (torch.tensor([[4, -2, 7], [7, 7, 1]]), 1)]:
        for keep in (False, True):
            c.add("aten::argmin", x, d, keep)
            c.add("aten::amax", x, [d], keep)
            c.add("aten::amin", x, [d], keep)
            c.add("aten::max.dim", x, d, keep, ref=values_indices(torch.max))
            c.add("aten::min.dim", x, d, keep, ref=values_indices(torch.min))
    c.add("aten::argmin", r(3, 4), None, False)
    c.add("aten::argmin", torch.tensor(2.5), None, False)
    x = r(2, 3, 4, 5)
    for dims in ([1, 3], [0, 1, 2, 3], [], [-1, 0]):
        c.add("aten::amax", x, dims, False)
        c.add("aten::amin", x, dims, True)
    c.error("aten::amax", r(2, 0, 3), [1], False)
    c.error("aten::argmin", r(0, 3), None, False)
    c.add("aten::cumsum", torch.tensor([[1, 2, 3], [4, 5, 6]]), 1, None)
    c.add("aten::cumsum", torch.tensor(2.5), 0, None)
    c.add("aten::cumsum", r(3, 700, 2), 1, None)  # long lines
    c.add("aten::cumsum", r(0, 4), 1, None)
    c.add("aten::argsort", torch.tensor([5, -2, 9, 0]), 0, False)
    c.error("aten::topk", r(3), 4, -1, True, True, ref=lambda t, k, d, l, so: tuple(torch.topk(t, k, d, l, so)))
    # x[idx] with tensor indices: a table by a 2-D index (swin_t's and maxvit_t's relative-position
    # bias), negative indices, rows and columns together, after a full slice, a 0-D index.
    c.add("aten::index.Tensor", r(13, 3), [torch.tensor([[0, 12, 5], [7, 7, 1]])])
    c.add("aten::index.Tensor", r(4, 5, 3), [None, torch.tensor([-1, 0, 2, -5])])
    c.add("aten::index.Tensor", r(4, 5, 3), [torch.tensor([[3], [0]]), torch.tensor([1, 4, 2])])
    c.add("aten::index.Tensor", r(2, 4, 5), [None, torch.tensor([3, 1]), torch.tensor([0, 4])])
    c.add("aten::index.Tensor", r(6, 2), [torch.tensor(4)])
    c.add("aten::index.Tensor", torch.tensor([[1, 2], [3, 4]]), [torch.tensor([1, 1, 0])])
    c.error("aten::index.Tensor", r(4, 5), [torch.tensor([4])])
    c.error("aten::index.Tensor", r(4, 5), [None, torch.tensor([-6])])
    c.error("aten::index.Tensor", r(4, 5), [torch.tensor([1, 2]), torch.tensor([0, 1, 2])])
    # einsum: maxvit_t's two attention products, a transpose-free matrix product, a sum over a
    # label one operand has alone, three operands, the implicit output.
    c.add("aten::einsum", "BGHID,BGHJD->BGHIJ", [r(2, 3, 2, 5, 4), r(2, 3, 2, 6, 4)], None)
    c.add("aten::einsum", "BGHIJ,BGHJD->BGHID", [r(2, 3, 2, 5, 6), r(2, 3, 2, 6, 4)], None)
    c.add("aten::einsum", "ik,kj->ji", [r(5, 7), r(7, 3)], None)
    c.add("aten::einsum", "bij,bk->bi", [r(2, 3, 4), r(2, 5)], None)
    c.add("aten::einsum", "ij,jk,kl->il", [r(3, 4), r(4, 5), r(5, 2)], None)
    c.add("aten::einsum", "ij,jk", [r(3, 4), r(4, 5)], None)
    c.add("aten::einsum", "ijk->kj", [r(3, 4, 5)], None)
    c.error("aten::einsum", "ij,jk->ik", [r(3, 4), r(5, 2)], None)
    c.error("aten::einsum", "ij,jk->ik", [r(3, 4)], None)
    c.add("aten::index_select", r(4, 5), 0, torch.tensor([3, 0, 3]))
    c.add("aten::index_select", r(2, 5, 3), 1, torch.tensor([4, 1]))
    c.add("aten::index_select", torch.tensor([[1, 2], [3, 4]]), 1, torch.tensor([1]))
    c.error("aten::index_select", r(4, 5), 0, torch.tensor([4]))
    c.error("aten::index_select", r(4, 5), 0, torch.tensor([-1]))
    c.add("aten::gather", r(3, 4), 1, torch.tensor([[0, 3], [2, 2], [1, 0]]), False)
    c.add("aten::gather", r(3, 4), 0, torch.tensor([[0, 2, 1, 1]]), False)
    c.add("aten::gather", r(2, 3, 4), 2, torch.tensor([[[3], [0], [1]], [[2], [2], [0]]]), False)
    c.error("aten::gather", r(3, 4), 1, torch.tensor([[4]]), False)
    c.add("aten::where.self", r(2, 3) > 0, r(2, 3), r(3))
    c.add("aten::where.self", r(1, 5, 1) > 0, r(3, 1, 4), r(5, 4))  # all three broadcast
    c.add("aten::where.self", r(4, 7) > 0.5, torch.arange(28).reshape(4, 7), torch.zeros(4, 7, dtype=torch.int64))
    c.add("aten::where.self", torch.tensor([True, False, True]), r(2, 3), r(2, 1))
    c.add("aten::embedding", r(10, 4), torch.tensor([[1, 9], [0, 1]]), -1, False, False)
    c.add("aten::embedding", r(6, 3), torch.tensor([5, 0, 2]), -1, False, False)
    c.error("aten::embedding", r(10, 4), torch.tensor([10]), -1, False, False)
    c.add("aten::nonzero", torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]))
    c.add("aten::nonzero", torch.tensor([0, 3, 0, 4]))
    c.add("aten::nonzero", torch.tensor([[True, False], [False, True]]))
    c.add("aten::gt.Scalar", r(3, 4), 0.1)
    c.add("aten::gt.Scalar", torch.tensor([1, 5, 3]), 3)
    c.add("aten::lt.Scalar", r(5), -0.2)
    # Comparisons with a scalar and masked_fill: swin_t's shifted-window mask.
    grid = torch.tensor([[0., 1., 1.], [2., 0., 3.]])
    for op in ("eq", "ne", "ge", "le", "gt", "lt"):
        c.add("aten::%s.Scalar" % op, grid, 1)
        c.add("aten::%s.Scalar" % op, r(2, 3, 5), 0.25)
        c.add("aten::%s.Scalar" % op, torch.tensor([[-3, 0, 7], [2, 2, 9]]), 2)
        c.add("aten::%s.Scalar" % op, r(7), -0.5)  # 7: a word and a part
    c.add("aten::eq.Scalar", torch.tensor([0.1, 0.2]), 0.1)  # compared in float32, as torch does
    c.add("aten::masked_fill.Scalar", r(3, 4), r(3, 4) > 0.5, -100.0)
    c.add("aten::masked_fill.Scalar", r(2, 3, 5), r(3, 1) > 0.3, 0.0)
    c.add("aten::masked_fill.Scalar", r(5), torch.tensor(True), 2.5)
    c.add("aten::masked_fill.Scalar", torch.tensor([[1, 2], [3, 4]]), torch.tensor([True, False]), 7)
    c.error("aten::masked_fill.Scalar", r(3, 4), r(3, 4), 1.0)
    c.error("aten::masked_fill.Scalar", r(3), r(2) > 0, 1.0)
    c.add("aten::masked_fill.Scalar", r(3), r(2, 3) > 0, 1.0)  # self broadcasts to the mask too
    # x.new_zeros(size), torch.tensor(number, dtype=, device=), clone, copy_ (broadcast src).
    c.add("aten::new_zeros", r(2, 3), [4, 5], None, None, None, None)
    c.add("aten::new_zeros", r(2), [3], 4, None, cpu, None)
    c.add("aten::tensor.int", 3, None, cpu, False)
    c.add("aten::tensor.int", -8, 6, cpu, False)
    c.add("aten::tensor.float", 2.5, None, None, False)
    c.add("aten::tensor.bool", True, None, None, False)
    c.add("aten::clone", r(3, 4), None)
    c.add("aten::copy_", r(2, 3), r(2, 3), False)
    c.add("aten::copy_", r(2, 3), r(3), False)
    c.add("aten::copy_", r(2, 3), torch.tensor(4.0), False)
    c.error("aten::copy_", r(2, 3), r(4), False)
    c.error("aten::copy_", r(3), r(2, 3), False)
    # Traced models' spellings: swapaxes, rsub, remainder and floor_divide (size arithmetic on
    # 0-D int64 tensors; CPU kernels only, as those stay on the CPU).
    c.add("aten::fill_.Scalar", r(2, 3), 1.5)
    c.add("aten::fill_.Scalar", torch.tensor([1, 2]), 7)
    c.add("aten::fill_.Tensor", r(4), torch.tensor(-2.0))
    c.error("aten::fill_.Tensor", r(4), r(2))
    c.add("aten::swapaxes", r(2, 3, 4), 0, 2)
    c.add("aten::swapdims", r(2, 3, 4), -1, 1)
    c.add("aten::rsub.Tensor", r(2, 3), r(3), 2)
    c.add("aten::rsub.Scalar", r(2, 3), 1, 1)
    c.add("aten::rsub.Scalar", r(4), 0.5, 3)
    c.add("aten::remainder.Scalar", torch.tensor(7), 2)
    c.add("aten::remainder.Scalar", torch.tensor([-7, 7]), 3)
    c.add("aten::remainder.Tensor", torch.tensor([5, -5, 9]), torch.tensor([3, 3, -4]))
    c.add("aten::remainder.Scalar", torch.tensor([-2.5, 2.5]), 2.0)
    c.add("aten::floor_divide", torch.tensor([7, -7]), torch.tensor([2, 2]))
    c.add("aten::floor_divide.Scalar", torch.tensor(224), 16)
    # div with a rounding mode (CPU kernels), and old archives' div (issue 11: integers round
    # toward zero in files of format version 3 or older, PyTorch's upgrader div_Tensor_0_3).
    c.add("aten::div.Tensor_mode", torch.tensor([7, -7, 9]), torch.tensor([2, 2, -4]), "trunc")
    c.add("aten::div.Tensor_mode", torch.tensor([7, -7, 9]), torch.tensor([2, 2, -4]), "floor")
    c.add("aten::div.Tensor_mode", r(2, 3) * 8 - 4, r(3) + 0.5, "trunc")
    c.add("aten::div.Tensor_mode", r(2, 3) * 8 - 4, r(3) + 0.5, None)
    c.add("aten::div.Scalar_mode", torch.tensor([7, -7]), 2, "trunc")
    c.add("aten::div.Scalar_mode", r(4) * 8 - 4, 1.5, "floor")
    c.error("aten::div.Tensor_mode", r(3), r(3), "round")

    def legacy_div(a, b):
        integral = not a.is_floating_point() and not (b.is_floating_point() if torch.is_tensor(b) else False)
        return torch.div(a, b, rounding_mode="trunc") if integral else torch.div(a, b)

    # Layer norm over dim 1 (ConvNeXt's channels-last blocks, rewritten to NCHW), against torch's
    # layer_norm with the channels moved last and back.
    def layer_norm_channels(x, shape, w, b, eps):
        return torch.nn.functional.layer_norm(x.movedim(1, -1), shape, w, b, eps).movedim(-1, 1)
    for xs, affine in [((2, 8, 5, 7), True), ((1, 96, 14, 14), True), ((3, 5, 9), False), ((2, 3), True),
                       ((1, 7, 1, 1), False)]:
        w, b = (r(xs[1]), r(xs[1])) if affine else (None, None)
        c.add("tvk::layer_norm_channels", r(*xs), [xs[1]], w, b, 1e-6, ref=layer_norm_channels)
    c.error("tvk::layer_norm_channels", r(2, 3, 4), [3], r(4), None, 1e-5, ref=layer_norm_channels)
    c.error("tvk::layer_norm_channels", r(2, 3, 4), [4], None, None, 1e-5, ref=layer_norm_channels)
    c.add("tvk::legacy_div.Tensor", torch.tensor([7, -7, 9]), torch.tensor([2, 2, -4]), ref=legacy_div)
    c.add("tvk::legacy_div.Tensor", r(2, 3), torch.tensor([2, 2, -4]), ref=legacy_div)
    c.add("tvk::legacy_div.Scalar", torch.tensor([-23, 23]), 4, ref=legacy_div)
    c.add("tvk::legacy_div.Scalar", r(2, 3), 4, ref=legacy_div)
    c.add("prim::NumToTensor.Scalar", 7, ref=lambda v: torch.tensor(v))
    c.add("prim::NumToTensor.Scalar", 2.5, ref=lambda v: torch.tensor(v))

    # ---- static quantization: tvk keeps quantized tensors as float32 values of their grid ----
    fq = "aten::fake_quantize_per_tensor_affine"
    for s, scale, zp, lo, hi in [((2, 3, 5, 7), 0.1, 0, 0, 255), ((64,), 0.037, 12, 0, 255), ((3, 40), 0.02, 0, -128, 127),
                                 ((4, 9), 0.5, 3, -5, 20)]:
        c.add(fq, r(s) * 4, scale, zp, lo, hi)
    c.add(fq, torch.arange(-8, 8, dtype=torch.float32) * 0.25, 0.5, 0, -128, 127)  # ties round to even
    c.error(fq, r(2, 3), 0.1, 0, 10, 5)
    c.error(fq, r(2, 3), 0.1, 300, 0, 255)
    qdtypes = {12: torch.qint8, 13: torch.quint8, 14: torch.qint32}
    quant = lambda x, s, z, d: torch.quantize_per_tensor(x, s, z, qdtypes[d]).dequantize()
    for s, scale, zp, dtype in [((2, 3, 8, 8), 0.05, 128, 13), ((5, 7), 0.01, 0, 12), ((30,), 0.001, 0, 14)]:
        c.add("aten::quantize_per_tensor", r(s) * 3, scale, zp, dtype, ref=quant)
    on_grid = quant(r(3, 4, 5), 0.02, 100, 13)
    c.add("aten::dequantize.self", on_grid, ref=lambda x: torch.quantize_per_tensor(x, 0.02, 100, torch.quint8).dequantize())

    # ---- attention (nn.MultiheadAttention's fast path; a composite of linear, matmul, softmax) ----
    mha = lambda *a: tuple(torch.ops.aten._native_multi_head_attention(*a))
    for b, l, e, h, avg in [(2, 5, 8, 2, True), (1, 7, 12, 3, False), (3, 4, 16, 4, True), (2, 20, 32, 4, True)]:
        x = r(b, l, e)
        c.add("aten::_native_multi_head_attention", x, x, x, e, h, r(3 * e, e) * 0.3, r(3 * e), r(e, e) * 0.3, r(e),
              None, True, avg, None, ref=mha)
    c.error("aten::_native_multi_head_attention", r(2, 3, 8), r(2, 5, 8), r(2, 5, 8), 8, 2, r(24, 8) * 0.3, r(24),
            r(8, 8) * 0.3, r(8), None, True, True, None, ref=mha)
    # Masks (issue 47): bool key padding [B, S] (types 1 and 2) and a full [B, H, L, S] one (torch
    # 1.13's CPU kernel takes no other form); odd sequence lengths, and one token.
    for b, l, e, h in [(2, 5, 8, 2), (3, 13, 12, 3), (1, 1, 8, 2)]:
        x = r(b, l, e)
        w = (r(3 * e, e) * 0.3, r(3 * e), r(e, e) * 0.3, r(e))
        pad = torch.zeros(b, l, dtype=torch.bool)
        pad[0, l // 2 + 1:] = True
        causal = torch.ones(l, l, dtype=torch.bool).triu(1)
        for mask, kind in [(pad, 1), (pad, 2), (causal.expand(b, h, l, l), 1)]:
            c.add("aten::_native_multi_head_attention", x, x, x, e, h, *w, mask, True, True, kind, ref=mha)
    # A sequence all padding: torch 1.13 gives NaN for it (softmax of nothing), the rest as usual.
    x = r(2, 4, 8)
    full = torch.zeros(2, 4, dtype=torch.bool)
    full[1] = True
    c.add("aten::_native_multi_head_attention", x, x, x, 8, 2, r(24, 8) * 0.3, r(24), r(8, 8) * 0.3, r(8), full, True,
          True, 1, ref=mha)
    # F.scaled_dot_product_attention (torch 2.0+; torch 1.13 has no kernel, so its documented
    # reference computation, run by torch, is the oracle here): bool and float masks that
    # broadcast, is_causal, an explicit scale, grouped-query heads, 3-D inputs, S != L.
    def sdpa(q, k, v, mask=None, dropout=0.0, causal=False, scale=None, gqa=False):
        import math
        if hasattr(torch.nn.functional, "scaled_dot_product_attention") and not gqa:
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout,
                                                                    is_causal=causal, scale=scale)
        if dropout != 0.0:  # training-time randomness: tvk runs inference and refuses it
            raise RuntimeError("dropout")
        if causal and mask is not None:
            raise RuntimeError("is_causal and attn_mask")
        l, s = q.size(-2), k.size(-2)
        bias = torch.zeros(l, s)
        if causal:
            bias.masked_fill_(torch.ones(l, s, dtype=torch.bool).tril(0).logical_not(), float("-inf"))
        if mask is not None:
            bias = bias.masked_fill(mask.logical_not(), float("-inf")) if mask.dtype == torch.bool else mask + bias
        if gqa:
            k = k.repeat_interleave(q.size(-3) // k.size(-3), -3)
            v = v.repeat_interleave(q.size(-3) // v.size(-3), -3)
        w = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.size(-1)) if scale is None else scale) + bias
        return torch.softmax(w, -1) @ v
    op = "aten::scaled_dot_product_attention"
    q, k, v = r(2, 3, 5, 8), r(2, 3, 7, 8), r(2, 3, 7, 6)
    keep = torch.rand(2, 1, 5, 7) > 0.3
    keep[..., 0] = True
    c.add(op, q, k, v, None, 0.0, False, None, False, ref=sdpa)
    c.add(op, q, k, v, keep, 0.0, False, None, False, ref=sdpa)
    c.add(op, q, k, v, r(5, 7), 0.0, False, 0.25, False, ref=sdpa)
    c.add(op, q, r(2, 3, 5, 8), r(2, 3, 5, 6), None, 0.0, True, None, False, ref=sdpa)
    c.add(op, r(4, 6, 8), r(4, 9, 8), r(4, 9, 8), None, 0.0, False, None, False, ref=sdpa)
    c.add(op, r(1, 4, 3, 8), r(1, 2, 6, 8), r(1, 2, 6, 8), None, 0.0, False, None, True, ref=sdpa)
    c.error(op, q, r(2, 3, 7, 4), v, None, 0.0, False, None, False, ref=sdpa)
    c.error(op, q, k, v, None, 0.5, False, None, False, ref=sdpa)
    # nn.TransformerEncoderLayer's fast path: post- and pre-norm, relu and gelu, with and without
    # a key padding mask.
    enc = lambda *a: torch.ops.aten._transformer_encoder_layer_fwd(*a)
    for b, l, e, h, ffn, gelu, norm_first in [(2, 6, 8, 2, 16, False, False), (3, 9, 12, 4, 20, True, True)]:
        pad = torch.zeros(b, l, dtype=torch.bool)
        pad[1, l - 3:] = True
        for mask, kind in [(None, None), (pad, 1)]:
            c.add("aten::_transformer_encoder_layer_fwd", r(b, l, e), e, h, r(3 * e, e) * 0.3, r(3 * e), r(e, e) * 0.3,
                  r(e), gelu, norm_first, 1e-5, r(e) + 1, r(e), r(e) + 1, r(e), r(ffn, e) * 0.3, r(ffn), r(e, ffn) * 0.3,
                  r(e), mask, kind, ref=enc)
    # nn.TransformerEncoder's nested tensors, kept padded by tvk with the mask as one more
    # feature (src/ops/attention.cpp): torch's own nested ops give each expected value.
    def nested_padded(t, mask):
        keep = mask.bool()
        data = torch._nested_tensor_from_mask(t, keep).to_padded_tensor(0.0, t.size())
        return torch.cat([data, keep.float().unsqueeze(-1)], -1)
    for b, l, e, lengths in [(2, 5, 3, [5, 2]), (3, 4, 8, [1, 4, 3])]:
        keep = torch.tensor([[i < n for i in range(l)] for n in lengths])
        t = r(b, l, e)
        c.add("aten::_nested_tensor_from_mask", t, keep, True, ref=lambda x, m, _: nested_padded(x, m))
        c.add("aten::_nested_tensor_from_mask_left_aligned", t, keep)
        c.add("aten::_nested_tensor_from_mask_left_aligned", t, keep.flip(1))
        for pad, size in [(0.0, None), (-1.5, [b + 1, l + 2, e])]:
            c.add("aten::to_padded_tensor", nested_padded(t, keep), pad, size,
                  ref=lambda x, p, s: torch._nested_tensor_from_mask(x[..., :-1], x[..., -1] != 0).to_padded_tensor(p, s))
    # Logical ops and reductions of masks.
    a, m = r(3, 4), torch.tensor([[True, False, True, False]])
    a[0, 0] = float("nan")
    for x, y in [(a > 0, m), (a, torch.tensor([0.0, 1.0, -2.0, 0.0])), (torch.tensor([3, 0, -1]), torch.tensor([0, 0, 5]))]:
        for name in ["logical_and", "logical_or", "logical_xor"]:
            c.add(f"aten::{name}", x, y)
    for x in [a, a > 0, torch.tensor([0, 2, -3]), torch.zeros(0, 3) > 0]:
        c.add("aten::logical_not", x)
        c.add("aten::any", x)
        c.add("aten::all", x)
        if x.dim() == 2:
            for d in [0, 1, -1]:
                c.add("aten::any.dim", x, d, False)
                c.add("aten::all.dim", x, d, True)
    for x in [a > 0, torch.tensor([0, 2, -3, 1 << 40])]:
        c.add("aten::bitwise_not", x)
    c.error("aten::bitwise_not", r(3))
    for x in [a > 0, torch.tensor([[True, False]])]:
        c.add("aten::eq.Scalar", x, 0)
        c.add("aten::ne.Scalar", x, 1)
    c.add("aten::masked_fill_.Scalar", r(2, 3), r(3) > 0, -1.5)
    c.add("aten::masked_fill_.Tensor", r(2, 3), r(2, 1) > 0, torch.tensor(4.0))
    c.error("aten::masked_fill_.Scalar", r(3), r(2, 3) > 0, 1.0)

    # ---- what a detection model's transform, anchors and postprocessing call (ssdlite) ----
    dtypes = {None: None, 6: torch.float32, 4: torch.int64, 11: torch.bool}
    nan = float("nan")
    for x in [r(2, 3), torch.tensor([1, 2]), torch.tensor(True)]:
        c.add("aten::is_floating_point", x, ref=lambda t: t.is_floating_point())
    for x in [torch.tensor(2.5), torch.tensor([-7]), torch.tensor([[True]]), torch.tensor(3.0)]:
        c.add("aten::item", x, ref=lambda t: t.item())
    c.error("aten::item", r(2), ref=lambda t: t.item())
    for size, value, dtype in [([2, 3], 1.5, None), ([4], 7, None), ([2, 2], True, None), ([3, 1], 2, 6), ([0, 2], 0.5, 4),
                               ([], -3, None)]:
        c.add("aten::full", size, value, dtype, None, cpu, None,
              ref=lambda sz, v, dt, l, d, p: torch.full(sz, v, dtype=dtypes[dt]))
    for x, value, dtype in [(r(2, 3), 7, None), (torch.tensor([1, 2]), 5, None), (r(4), 3, 4), (r(2, 2), 0.5, 6)]:
        c.add("aten::full_like", x, value, dtype, None, None, None, None,
              ref=lambda t, v, dt, l, d, p, m: torch.full_like(t, v, dtype=dtypes[dt]))
    for x, size, value in [(r(2), [3, 2], 0), (torch.tensor([1]), [4], -2), (r(1, 1), [2, 0, 3], 1.5)]:
        c.add("aten::new_full", x, size, value, None, None, None, None,
              ref=lambda t, sz, v, dt, l, d, p: t.new_full(sz, v))
    for data, dtype in [([320, 240], None), ([0.485, 0.456, 0.406], None), ([1, 2, 3], 6), ([2.7, -1.5], 4), ([], None)]:
        c.add("aten::tensor", data, dtype, cpu, False, ref=lambda d, dt, dev, rg: torch.tensor(d, dtype=dtypes[dt]))
        c.add("aten::as_tensor.list", data, dtype, None, ref=lambda d, dt, dev: torch.as_tensor(d, dtype=dtypes[dt]))
    for end in [5, 2.5, 0, 1]:
        c.add("aten::arange", end, None, None, None, None, ref=lambda e, *a: torch.arange(e))
    for start, end in [(0, 7), (2.5, 6), (-3, 2), (4, 4)]:
        c.add("aten::arange.start", start, end, None, None, cpu, None, ref=lambda a, b, *x: torch.arange(a, b))
    for start, end, step, dtype in [(1, 10, 3, None), (5, -3, -2, None), (0.0, 1.0, 0.25, None), (0, 5, 1, 6), (0.5, 4, 1, 4)]:
        c.add("aten::arange.start_step", start, end, step, dtype, None, None, None,
              ref=lambda a, b, st, dt, *x: torch.arange(a, b, st, dtype=dtypes[dt]))
    c.error("aten::arange.start_step", 0, 5, 0, None, None, None, None, ref=lambda a, b, st, *x: torch.arange(a, b, st))
    c.error("aten::arange.start_step", 0, 5, -1, None, None, None, None, ref=lambda a, b, st, *x: torch.arange(a, b, st))
    for x in [r(3, 4), torch.tensor([[5, -2], [9, 0]]), torch.tensor([1.0, nan, -2.0]), torch.tensor(4.5)]:
        c.add("aten::min", x)
        c.add("aten::max", x)
    c.error("aten::max", r(0, 3))
    c.add("aten::minimum", torch.tensor([1.0, nan, 3.0]), torch.tensor([2.0, 0.0, nan]))
    c.add("aten::maximum", torch.tensor([[4, -1], [0, 8]]), torch.tensor([2, 2]))
    c.add("aten::min.other", torch.tensor([[4, -1], [0, 8]]), torch.tensor([2.5, 2.5]))  # promoted to float
    c.error("aten::maximum", r(2, 3), r(4))
    for ts, d in [([r(3, 4), r(3, 4)], 0), ([r(3, 4), r(3, 4), r(3, 4)], -1), ([r(2), r(2)], 1), ([r(5)], 0),
                  ([torch.tensor([1, 2]), torch.tensor([3, 4])], 0), ([r(2, 0), r(2, 0)], 1)]:
        c.add("aten::stack", ts, d, ref=torch.stack)
    c.error("aten::stack", [r(3, 4), r(3, 5)], 0, ref=torch.stack)
    c.error("aten::stack", [r(3, 4), r(3, 4)], 3, ref=torch.stack)
    for x, d in [(r(4, 3), 1), (r(2, 3, 5), 0), (torch.tensor([[1, 2], [3, 4]]), -1), (r(1, 4), 0)]:
        c.add("aten::unbind.int", x, d, ref=lambda t, d: tuple(torch.unbind(t, d)))
    for x, reps in [(r(2, 3), [2, 1]), (r(3), [2, 2, 2]), (r(2, 1, 3), [1, 4, 1]), (torch.tensor([1, 2]), [3]),
                    (r(2, 2), [0, 2]), (torch.tensor(1.5), [2, 3])]:
        c.add("aten::repeat", x, reps)
    c.error("aten::repeat", r(2, 3), [2])
    for ts in [[r(3), r(4)], [r(2), r(3), r(5)], [torch.arange(3), torch.arange(2)], [r(1), r(4)]]:
        c.add("aten::meshgrid", ts, ref=lambda t: tuple(torch.meshgrid(t, indexing="ij")))
        c.add("aten::meshgrid.indexing", ts, "xy", ref=lambda t, i: tuple(torch.meshgrid(t, indexing=i)))
        c.add("aten::meshgrid.indexing", ts, "ij", ref=lambda t, i: tuple(torch.meshgrid(t, indexing=i)))
    c.error("aten::meshgrid.indexing", [r(3), r(2, 2)], "ij", ref=lambda t, i: torch.meshgrid(t, indexing=i))
    # dtype conversions: float to int64 truncates toward zero, to bool is "non-zero".
    conversions = [(torch.tensor([2.7, -2.7, 0.0, 1e6]), 4), (torch.tensor([[3, -8]]), 6), (torch.tensor([True, False]), 6),
                   (torch.tensor([0.0, -0.5, nan]), 11), (torch.tensor(7), 6), (torch.tensor([1, 0, 2]), 11)]
    for x, dtype in conversions:
        c.add("aten::to.dtype", x, dtype, False, False, None, ref=lambda t, dt, nb, cp, mf: t.to(dtypes[dt]))
        c.add("aten::to.prim_Device", x, None, dtype, False, False, ref=lambda t, d, dt, nb, cp: t.to(dtypes[dt]))
        c.add("aten::to.device", x, cpu, dtype, False, False, None, ref=lambda t, d, dt, nb, cp, mf: t.to(dtypes[dt]))
        c.add("aten::to.other", torch.tensor([1.5, 2.0]), x, False, False, None, ref=lambda t, o, nb, cp, mf: t.to(o))
    for x, dtype in conversions:
        c.add("aten::to.dtype_layout", x, dtype, None, None, None, False, False, None,
              ref=lambda t, dt, *a: t.to(dtype=dtypes[dt]))
        c.add("aten::to.prim_dtype", x, dtype, False, False, ref=lambda t, dt, nb, cp: t.to(dtypes[dt]))
        c.add("aten::type_as", x, torch.tensor([1.0]) if dtype == 6 else torch.tensor([1]) if dtype == 4 else torch.tensor([True]),
              ref=lambda t, o: t.type_as(o))
    c.add("aten::to.dtype_layout", r(2, 3), None, None, None, None, False, True, None, ref=lambda t, *a: t.clone())
    c.add("aten::to.prim_other", r(2, 3), False, True, ref=lambda t, nb, cp: t.clone())
    for op in ("eq", "ne", "ge", "le", "gt", "lt"):
        c.add("aten::%s.Tensor" % op, grid, torch.tensor([1.0, 0.0, 3.0]))
        c.add("aten::%s.Tensor" % op, r(2, 3, 5), r(3, 1))
        c.add("aten::%s.Tensor" % op, torch.tensor([[-3, 0, 7], [2, 2, 9]]), torch.tensor(2))
        c.add("aten::%s.Tensor" % op, torch.tensor([1, 5, 3]), torch.tensor([1.0, 4.5, 3.5]))  # int64 with float
    c.error("aten::eq.Tensor", r(2, 3), r(4))
    for cond in [r(3, 4) > 0, torch.tensor([0.0, 1.5, 0.0, -2.0]), torch.tensor([[[0, 3], [4, 0]]]), torch.tensor([False])]:
        c.add("aten::where", cond, ref=lambda t: tuple(torch.where(t)))
    for x, srt, inv, cnt in [(torch.tensor([5, 1, 5, 3, 1, 1]), True, True, True), (torch.tensor([[2.5, -1.0], [2.5, 0.0]]), True, True, False),
                             (torch.tensor([7, 7, 7]), True, False, True), (torch.tensor([3, 1, 2]), True, False, False),
                             (torch.tensor([True, False, True]), True, True, True)]:
        c.add("aten::_unique2", x, srt, inv, cnt, ref=lambda t, s, i, n: tuple(torch._unique2(t, s, i, n)))
    # x[mask] and x[idx] = v (detections: scores above a threshold, kept boxes marked in a mask).
    scores = r(6, 4)
    c.add("aten::index.Tensor", scores, [scores > 0.2])
    c.add("aten::index.Tensor", scores, [torch.tensor([True, False, True, True, False, False])])
    c.add("aten::index.Tensor", scores, [None, torch.tensor([False, True, True, False])])
    c.add("aten::index.Tensor", torch.tensor([4, 5, 6]), [torch.tensor([False, False, False])])
    c.error("aten::index.Tensor", r(6, 4), [torch.tensor([True, False])])
    c.add("aten::index_put_", r(4, 5), [torch.tensor([0, 2])], r(5), False)
    c.add("aten::index_put_", r(4, 5), [torch.tensor([1, 1, 3])], r(3, 5), True)  # repeats accumulate
    c.add("aten::index_put_", r(3, 4), [r(3, 4) > 0], torch.tensor(-1.0), False)
    c.add("aten::index_put_", torch.zeros(6, dtype=torch.bool), [torch.tensor([4, 1])], torch.tensor(True), False)
    c.add("aten::index_put_", torch.zeros(2, 3, dtype=torch.int64), [None, torch.tensor([2, 0])], torch.tensor([[7, 8], [9, 10]]), False)
    c.error("aten::index_put_", r(4, 5), [torch.tensor([0, 2])], r(3), False)
    c.error("aten::index_put_", r(4, 5), [torch.tensor([4])], r(5), False)

    families(torch, c)


def families(torch, c):
    """The ops of sequence, audio and image-to-image models (issue 48): math functions and more
    activations, 1-D convolutions and pools, group and instance norm, pixel (un)shuffle, flip and
    the non-constant pads, glu, prelu, split, narrow, and the recurrent layers."""
    r = torch.randn
    halves = torch.tensor([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.5, -0.49, 0.51])  # round: half to even
    for s in [(), (7,), (3, 5), (2, 3, 5, 7), (0, 3)]:
        x = r(s) * 3
        pos = x.abs() + 0.05
        for name in ["abs", "sin", "cos", "floor", "ceil", "round", "trunc", "sign", "erf", "mish", "expm1"]:
            c.add(f"aten::{name}", x)
            c.add(f"aten::{name}_", x)
        for name in ["log", "log2", "log10"]:
            c.add(f"aten::{name}", pos)
            c.add(f"aten::{name}_", pos)
        c.add("aten::log1p", pos - 0.9)  # above -1, and values near 0
        c.add("aten::log1p_", x * 1e-4)
        c.add("aten::log_sigmoid", x * 10)
        c.add("aten::leaky_relu", x, 0.01)
        c.add("aten::leaky_relu", x, 0.2)
        c.add("aten::leaky_relu_", x, 0.1)
        c.add("aten::elu", x, 1.0, 1.0, 1.0)
        c.add("aten::elu", x, 0.5, 2.0, 1.5)
        c.add("aten::elu_", x, 1.2, 1.0, 1.0)
        c.add("aten::selu", x)
        c.add("aten::celu", x, 0.7)
        c.add("aten::softplus", x, 1, 20)
        c.add("aten::softplus", x * 10, 2.0, 5.0)  # past the threshold: x itself
    for name in ["round", "floor", "ceil", "trunc", "sign"]:
        c.add(f"aten::{name}", halves)
    c.add("aten::expm1", torch.tensor([1e-7, -1e-6, 0.3, -0.7, 5.0]))
    c.add("aten::log1p", torch.tensor([1e-7, -1e-6, 0.3, -0.7, 5.0]))
    c.add("aten::mish", torch.tensor([-30.0, -5.0, 0.0, 5.0, 30.0]))
    c.error("aten::celu", r(3), 0.0)

    # ---- 1-D convolutions (as 2-D over a height of 1), and string padding ----
    conv1d_cases = [  # (input, weight, bias?, stride, padding, dilation, groups)
        ((2, 4, 50), (6, 4, 3), True, 1, 1, 1, 1),
        ((1, 6, 33), (6, 1, 5), False, 2, 2, 1, 6),  # depthwise, strided
        ((3, 4, 40), (8, 2, 3), True, 1, 0, 3, 2),  # dilated, grouped
        ((1, 1, 400), (16, 1, 10), True, 5, 0, 1, 1),  # wav2vec2's first layer, small
        ((4, 17), (5, 4, 1), True, 1, 0, 1, 1),  # unbatched, pointwise
    ]
    for xs, ws, has_b, st, pad, dil, g in conv1d_cases:
        x, w = r(xs), r(ws)
        b = r(ws[0]) if has_b else None
        c.add("aten::conv1d", x, w, b, [st], [pad], [dil], g)
        if len(xs) == 3:
            c.add("aten::convolution", x, w, b, [st], [pad], [dil], False, [0], g)
            c.add("aten::_convolution", x, w, b, [st], [pad], [dil], False, [0], g, False, False, True, True)
    for k, dil in [(3, 1), (4, 1), (4, 3), (1, 1)]:  # 'same' with an odd total pads one more after
        c.add("aten::conv1d.padding", r(2, 3, 20), r(5, 3, k), r(5), [1], "same", [dil], 1)
        c.add("aten::conv1d.padding", r(2, 3, 20), r(5, 3, k), None, [2], "valid", [dil], 1)
    c.add("aten::conv2d.padding", r(1, 3, 9, 10), r(4, 3, 3, 4), r(4), [1, 1], "same", [1, 2], 1)
    c.add("aten::_convolution_mode", r(1, 3, 9, 10), r(4, 3, 3, 4), r(4), [1, 1], "same", [1, 2], 1)
    c.add("aten::_convolution_mode", r(2, 3, 20), r(6, 1, 4), None, [1], "same", [2], 3)
    c.add("aten::_convolution_mode", r(2, 3, 20), r(6, 3, 4), r(6), [3], "valid", [1], 1)
    c.add("aten::conv2d.padding", r(1, 4, 9, 10), r(4, 2, 3, 3), None, [2, 1], "valid", [1, 1], 2)
    c.error("aten::conv1d.padding", r(1, 3, 20), r(5, 3, 3), None, [2], "same", [1], 1)
    c.error("aten::conv1d.padding", r(1, 3, 20), r(5, 3, 3), None, [1], "full", [1], 1)
    c.error("aten::conv1d", r(1, 3, 20), r(5, 4, 3), None, [1], [0], [1], 1)
    for xs, ws, st, pad, opad, g, dil in [((2, 4, 10), (4, 3, 3), 2, 1, 1, 1, 1), ((1, 6, 7), (6, 2, 4), 3, 0, 0, 2, 1),
                                          ((1, 2, 9), (2, 3, 3), 1, 2, 0, 1, 2)]:
        x, w = r(xs), r(ws)
        b = r(ws[1] * g)
        c.add("aten::conv_transpose1d", x, w, b, [st], [pad], [opad], g, [dil])
        c.add("aten::convolution", x, w, b, [st], [pad], [dil], True, [opad], g)

    # ---- 3-D convolutions (as depth taps of 2-D ones) and pools (separable) ----
    conv3d_cases = [  # (input, weight, bias?, stride, padding, dilation, groups)
        ((1, 3, 5, 9, 8), (4, 3, 3, 3, 3), True, [1, 1, 1], [1, 1, 1], [1, 1, 1], 1),
        ((2, 4, 6, 7, 7), (6, 2, 3, 1, 1), False, [2, 1, 1], [1, 0, 0], [1, 1, 1], 2),  # (2+1)D's temporal conv
        ((1, 2, 4, 10, 9), (3, 2, 1, 3, 3), True, [1, 2, 2], [0, 1, 1], [1, 1, 1], 1),  # its spatial conv
        ((1, 2, 7, 6, 6), (2, 1, 2, 2, 2), True, [1, 1, 1], [0, 0, 0], [2, 1, 2], 2),
        ((3, 5, 6, 4), (4, 3, 2, 3, 1), True, [1, 1, 1], [1, 0, 0], [1, 1, 1], 1),  # unbatched
    ]
    for xs, ws, has_b, st, pad, dil, g in conv3d_cases:
        x, w = r(xs), r(ws)
        b = r(ws[0]) if has_b else None
        c.add("aten::conv3d", x, w, b, st, pad, dil, g)
        if len(xs) == 5:
            c.add("aten::convolution", x, w, b, st, pad, dil, False, [0, 0, 0], g)
            c.add("aten::_convolution", x, w, b, st, pad, dil, False, [0, 0, 0], g, False, False, True, True)
    c.add("aten::conv3d.padding", r(1, 2, 5, 6, 7), r(3, 2, 3, 2, 3), r(3), [1, 1, 1], "same", [1, 1, 2], 1)
    c.add("aten::conv3d.padding", r(1, 2, 5, 6, 7), r(3, 2, 3, 2, 3), None, [1, 2, 1], "valid", [1, 1, 1], 1)
    c.error("aten::conv3d", r(1, 3, 2, 5, 5), r(4, 3, 3, 3, 3), None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)  # kernel > depth
    c.error("aten::conv3d", r(1, 4, 5, 5, 5), r(4, 3, 3, 3, 3), None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)  # channels
    for x in [r(2, 3, 6, 7, 8), r(3, 5, 6, 4)]:
        c.add("aten::max_pool3d", x, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], False)
        c.add("aten::max_pool3d", x, [3, 3, 2], [2, 1, 2], [1, 1, 0], [1, 1, 1], True)
        c.add("aten::max_pool3d", x, [2, 3, 3], [1, 2, 2], [0, 1, 1], [2, 1, 1], False)
        c.add("aten::avg_pool3d", x, [2, 2, 2], [], [0, 0, 0], False, True, None)
        c.add("aten::avg_pool3d", x, [3, 3, 3], [2, 2, 2], [1, 1, 1], True, False, None)
        c.add("aten::avg_pool3d", x, [3, 2, 3], [1, 2, 2], [1, 0, 1], False, True, None)
        c.add("aten::avg_pool3d", x, [2, 2, 2], [2, 2, 2], [1, 1, 1], True, True, 5)
        for o in [[1, 1, 1], [2, 3, 2], [4, 4, 4]]:
            c.add("aten::adaptive_avg_pool3d", x, o)
    c.error("aten::max_pool3d", r(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2], [2, 0, 0], [1, 1, 1], False)
    c.error("aten::avg_pool3d", r(1, 2, 4, 4), [2, 2, 2], [], [0, 0, 0], False, True, 0)

    # ---- 1-D and 3-D resizing ----
    for x in [r(2, 3, 7), r(1, 2, 1)]:
        for size in [[14], [5], [1]]:
            c.add("aten::upsample_nearest1d", x, size, None)
            for ac in [False, True]:
                c.add("aten::upsample_linear1d", x, size, ac, None)
        for s in [2.0, 1.5, 0.5]:
            if int(x.shape[2] * s) > 0:
                c.add("aten::upsample_nearest1d.vec", x, None, [s])
                c.add("aten::upsample_linear1d.vec", x, None, False, [s])
        c.add("aten::upsample_linear1d.vec", x, [9], True, None)
    for x in [r(1, 2, 3, 4, 5), r(2, 1, 2, 3, 2)]:
        for size in [[6, 8, 10], [3, 2, 7], [1, 1, 1]]:
            c.add("aten::upsample_nearest3d", x, size, None, None, None)
            for ac in [False, True]:
                c.add("aten::upsample_trilinear3d", x, size, ac, None, None, None)
        c.add("aten::upsample_nearest3d.vec", x, None, [2.0, 1.5, 2.0])
        c.add("aten::upsample_trilinear3d.vec", x, None, False, [2.0, 2.0, 0.5])
        c.add("aten::upsample_trilinear3d.vec", x, [4, 4, 4], True, None)
    c.error("aten::upsample_nearest1d.vec", r(1, 2, 3), [4], [2.0])
    c.error("aten::upsample_trilinear3d", r(1, 2, 3, 4), [2, 2, 2], False, None, None, None)

    # ---- im2col (F.unfold) ----
    for x, k, d, p, s in [(r(2, 3, 6, 7), [2, 3], [1, 1], [0, 1], [1, 2]), (r(1, 2, 9, 9), [3, 3], [2, 1], [2, 0], [2, 2]),
                          (r(4, 5, 5), [1, 1], [1, 1], [0, 0], [1, 1]), (r(1, 1, 4, 4), [4, 4], [1, 1], [0, 0], [4, 4])]:
        c.add("aten::im2col", x, k, d, p, s)
    c.error("aten::im2col", r(1, 2, 3, 3), [4, 4], [1, 1], [0, 0], [1, 1])

    # ---- 1-D pools ----
    for x in [r(2, 3, 20), r(4, 17), r(1, 5, 7)]:
        c.add("aten::max_pool1d", x, [3], [2], [1], [1], False)
        c.add("aten::max_pool1d", x, [2], [], [0], [1], True)
        c.add("aten::max_pool1d", x, [3], [1], [0], [2], False)
        c.add("aten::avg_pool1d", x, [3], [2], [1], False, True)
        c.add("aten::avg_pool1d", x, [3], [2], [1], True, False)
        c.add("aten::avg_pool1d", x, [4], [], [0], False, True)
        for o in [1, 4, 5]:
            c.add("aten::adaptive_avg_pool1d", x, [o])
            c.add("aten::adaptive_max_pool1d", x, [o])
    c.error("aten::max_pool1d", r(2, 3, 20), [3], [2], [2], [1], False)  # padding > half the kernel
    c.error("aten::adaptive_avg_pool1d", r(2, 3, 4, 5), [2])

    # ---- group and instance norm ----
    for shape, groups in [((2, 6, 5, 4), 3), ((1, 8, 33), 2), ((3, 4, 2, 3, 2), 4), ((2, 6, 7, 7), 1), ((2, 4), 2)]:
        x = r(shape) * 2 + 0.5
        w, b = r(shape[1]), r(shape[1])
        c.add("aten::group_norm", x, groups, w, b, 1e-5, True)
        c.add("aten::group_norm", x, groups, None, None, 1e-3, True)
    c.error("aten::group_norm", r(2, 6, 4), 4, None, None, 1e-5, True)
    for shape in [(2, 3, 6, 5), (1, 4, 30), (2, 2, 3, 4, 2)]:
        x = r(shape) * 3 - 1
        w, b, rm, rv = r(shape[1]), r(shape[1]), r(shape[1]), torch.rand(shape[1]) + 0.5
        c.add("aten::instance_norm", x, w, b, None, None, True, 0.1, 1e-5, True)
        c.add("aten::instance_norm", x, None, None, None, None, True, 0.1, 1e-5, True)
        c.add("aten::instance_norm", x, w, b, rm, rv, False, 0.1, 1e-5, True)

    # ---- pixel (un)shuffle ----
    for x, f in [(r(1, 8, 3, 5), 2), (r(2, 9, 4, 2), 3), (r(2, 3, 4, 2, 3), 1), (r(3, 2, 4, 4, 3), 2), (r(18, 2, 3), 3)]:
        if x.shape[-3] % (f * f) == 0:
            c.add("aten::pixel_shuffle", x, f)
        if x.shape[-1] % f == 0 and x.shape[-2] % f == 0:
            c.add("aten::pixel_unshuffle", x, f)
    c.error("aten::pixel_shuffle", r(1, 6, 3, 3), 2)
    c.error("aten::pixel_unshuffle", r(1, 2, 3, 4), 2)

    # ---- flip and the non-constant pads (gathers of rows) ----
    for x, dims in [(r(2, 3, 4), [0]), (r(2, 3, 4), [-1, 1]), (r(5), [0]), (torch.arange(12).reshape(3, 4), [0, 1]),
                    (r(2, 3, 4, 5), []), (torch.tensor(3.0), [])]:
        c.add("aten::flip", x, dims)
    c.error("aten::flip", r(2, 3), [0, -2])
    c.error("aten::flip", r(2, 3), [2])
    for mode in ["reflect", "replicate", "circular"]:
        c.add("aten::pad", r(2, 3, 8), [2, 3], mode, None)
        c.add("aten::pad", r(1, 2, 5, 6), [1, 2, 3, 0], mode, None)
        c.add("aten::pad", r(1, 2, 3, 4, 5), [1, 1, 2, 0, 0, 2], mode, None)
        c.add("aten::pad", r(1, 2, 4, 4), [0, 0, 3, 1], mode, None)
    c.error("aten::pad", r(1, 2, 4), [4, 0], "reflect", None)  # pad >= size
    c.add("aten::reflection_pad1d", r(2, 3, 6), [2, 5])
    c.add("aten::reflection_pad1d", r(3, 6), [1, 0])
    c.add("aten::reflection_pad2d", r(1, 3, 5, 7), [3, 3, 2, 4])
    c.add("aten::reflection_pad2d", r(2, 5, 7), [0, 1, 1, 0])
    c.add("aten::reflection_pad3d", r(1, 2, 3, 4, 5), [1, 2, 2, 1, 0, 2])
    c.add("aten::replication_pad1d", r(2, 3, 6), [4, 9])
    c.add("aten::replication_pad2d", r(1, 3, 5, 7), [3, 3, 2, 8])
    c.add("aten::replication_pad2d", r(3, 1, 1), [2, 2, 2, 2])
    c.add("aten::replication_pad3d", r(1, 2, 3, 4, 5), [1, 2, 2, 1, 3, 0])
    c.error("aten::reflection_pad2d", r(1, 3, 5, 7), [3, 7, 0, 0])
    for x, d, rows in [(r(3, 4), 1, [3, 0, 0, 2, 1]), (torch.arange(6).reshape(2, 3), 0, [1, 1, 0]), (r(2, 3, 4), -2, [])]:
        c.add("tvk::gather_dim", x, d, rows, ref=lambda t, d, rows: torch.index_select(t, d, torch.tensor(rows, dtype=torch.int64)))
    c.error("tvk::gather_dim", r(3, 4), 1, [4], ref=lambda t, d, rows: torch.index_select(t, d, torch.tensor(rows)))

    # ---- glu, prelu, split, narrow ----
    for x, d in [(r(2, 6), -1), (r(4, 3, 5), 0), (r(2, 8, 3, 3), 1)]:
        c.add("aten::glu", x, d)
    c.error("aten::glu", r(3, 5), -1)
    for x, w in [(r(2, 3, 4, 5), r(3)), (r(2, 3, 4, 5), r(1)), (r(4, 6), r(6)), (r(7), r(1)), (r(2, 5, 9), r(5))]:
        c.add("aten::prelu", x, w)
    c.error("aten::prelu", r(2, 3, 4), r(4))
    for x, size, d in [(r(7, 4), 3, 0), (r(2, 10), 5, 1), (r(3, 4), 10, -1), (torch.arange(10), 4, 0)]:
        c.add("aten::split.Tensor", x, size, d, ref=lambda t, s, d: tuple(torch.split(t, s, d)))
    for x, sizes, d in [(r(7, 4), [3, 0, 4], 0), (r(2, 10), [5, 5], 1), (r(3, 6), [1, 2, 3], -1)]:
        c.add("aten::split_with_sizes", x, sizes, d, ref=lambda t, s, d: tuple(torch.split(t, s, d)))
        c.add("aten::split", x, sizes, d, ref=lambda t, s, d: tuple(torch.split(t, s, d)))
        c.add("aten::split.sizes", x, sizes, d, ref=lambda t, s, d: tuple(torch.split(t, s, d)))
    c.error("aten::split_with_sizes", r(7, 4), [3, 3], 0, ref=lambda t, s, d: torch.split(t, s, d))
    for x, n, d in [(r(4, 6), 3, 1), (r(5, 2), 2, 0), (r(2, 16), 4, -1)]:
        c.add("aten::unsafe_chunk", x, n, d, ref=lambda t, n, d: tuple(torch.unsafe_chunk(t, n, d)))
        c.add("aten::unsafe_split.Tensor", x, n, d, ref=lambda t, n, d: tuple(torch.unsafe_split(t, n, d)))
    c.add("aten::unsafe_split_with_sizes", r(7, 4), [3, 0, 4], 0,
          ref=lambda t, s, d: tuple(torch.unsafe_split_with_sizes(t, s, d)))
    for x, d, start, length in [(r(5, 4), 0, 1, 3), (r(5, 4), -1, -3, 2), (r(3, 6, 2), 1, 6, 0)]:
        c.add("aten::narrow", x, d, start, length)
    c.error("aten::narrow", r(5, 4), 0, 3, 3)

    # ---- the rest of PyTorch's final Vulkan op set ----
    base, expo = torch.rand(3, 4) * 3 + 0.1, r(3, 4)
    c.add("aten::pow.Tensor_Tensor", base, expo)
    c.add("aten::pow.Tensor_Tensor", r(2, 3, 4), torch.tensor([2.0, 3.0, 0.0, -1.0]))  # negative bases, whole exponents
    c.add("aten::pow.Tensor_Tensor", r(2, 1), torch.tensor([0.5, 1.5]))  # negative bases: NaN, as torch
    c.add("aten::pow.Tensor_Tensor", torch.tensor([[2, -3], [0, 5]]), torch.tensor([3, 2]))  # int64 stays int64
    c.add("aten::pow_.Tensor", base, expo)
    c.add("aten::pow.Scalar", 2.0, expo)
    c.add("aten::pow.Scalar", -2.0, torch.tensor([0.0, 1.0, 2.0, 3.0, -1.0]))
    c.add("aten::pow.Scalar", 3, torch.tensor([0, 1, 4]))
    c.add("aten::pow_.Scalar", r(4, 5), 2.0)
    c.add("aten::pow_.Scalar", base, -0.5)
    num, den = r(4, 6) * 10, r(4, 6) * 3
    for a, b in [(num, den), (num, den[0]), (r(3, 1, 5) * 7, r(2, 1) * 2)]:
        c.add("aten::floor_divide", a, b)
        c.add("aten::remainder.Tensor", a, b)
    c.add("aten::floor_divide_.Tensor", num, den)
    for v in [2.5, -1.5, 3.0]:
        c.add("aten::floor_divide.Scalar", num, v)
        c.add("aten::floor_divide_.Scalar", num, v)
        c.add("aten::remainder.Scalar", num, v)
    c.add("aten::floor_divide_.Tensor", torch.tensor([7, -7, 9]), torch.tensor([2, 2, -4]))
    for x in [r(3, 5) * 2, r(0, 2)]:
        for lam in [0.5, 1.2]:
            c.add("aten::hardshrink", x, lam)
            c.add("aten::hardshrink_", x, lam, ref=lambda t, l: torch.nn.functional.hardshrink(t, l))
        c.add("aten::threshold", x, 0.1, -2.0)
        c.add("aten::threshold_", x, -0.3, 5.0)
        c.add("aten::gelu_", x, "none")
        c.add("aten::gelu_", x, "tanh")
        c.add("aten::zero_", x)
    for x, o in [(r(3, 1), r(2, 3, 4)), (r(4), r(2, 4)), (r(1, 1), r(1, 1))]:
        c.add("aten::expand_as", x, o, ref=lambda a, b: a.expand_as(b).contiguous())
    a, b = r(2, 3, 4), r(2, 3, 4)
    c.add("aten::lerp.Scalar", a, b, 0.3)
    c.add("aten::lerp.Scalar", a, b[0], 1.5)
    c.add("aten::lerp.Tensor", a, b, torch.rand(3, 4))
    c.add("aten::lerp.Tensor", a, b, torch.rand(2, 3, 4))
    c.add("aten::lerp_.Scalar", a, b, 0.7)
    c.add("aten::lerp_.Tensor", a, b, torch.rand(4))
    c.add("aten::masked_fill.Tensor", r(3, 4), r(3, 4) > 0, torch.tensor(-7.5))
    c.add("aten::masked_fill.Tensor", r(2, 3, 4), torch.tensor([True, False, True, False]), torch.tensor(2.0))
    c.error("aten::masked_fill.Tensor", r(3, 4), r(3, 4) > 0, torch.tensor([1.0, 2.0]))
    for sa, s1, s2, beta, alpha in [((2, 3, 5), (2, 3, 4), (2, 4, 5), 1.0, 1.0), ((3, 5), (2, 3, 4), (2, 4, 5), 0.5, 2.0),
                                    ((1,), (3, 2, 6), (3, 6, 1), 0.0, -1.0)]:
        c.add("aten::baddbmm", r(sa), r(s1), r(s2), beta, alpha)
    c.error("aten::baddbmm", r(4, 4), r(2, 3, 4), r(2, 4, 5), 1.0, 1.0)
    for x, d in [(r(3, 7), 1), (r(2, 3, 4), 0), (r(5), -1)]:
        c.add("aten::_softmax", x, d, False)
        c.add("aten::_log_softmax", x, d, False)
    for x, dims in [(r(2, 3), [2, 2]), (r(2, 3), [3]), (r(4), [2, 1, 3]), (torch.tensor([1, 2]), [2])]:
        c.add("aten::tile", x, dims)
    c.add("aten::_reshape_alias", r(2, 3, 4), [6, 4], [4, 1])
    c.add("aten::_reshape_alias", r(2, 6), [3, 2, 2], [4, 2, 1])
    for x, dims, keep in [(r(3, 5) * 4 + 1, [1], False), (r(2, 3, 4), [0, 2], True), (r(6), None, False), (r(4, 5), [-1], True)]:
        for unbiased in [True, False]:
            c.add("aten::var.dim", x, dims, unbiased, keep)
            c.add("aten::std.dim", x, dims, unbiased, keep)
        for corr in [None, 0, 2]:
            c.add("aten::var.correction", x, dims, corr, keep)
            c.add("aten::std.correction", x, dims, corr, keep)
    for shape, norm in [((2, 3, 8), [8]), ((2, 3, 4, 5), [4, 5]), ((6,), [6])]:
        x = r(shape) * 2 + 1
        c.add("aten::native_layer_norm", x, norm, r(norm), r(norm), 1e-5)
        c.add("aten::native_layer_norm", x, norm, None, None, 1e-3)
    x, w = r(2, 4, 9, 9), r(6, 4, 3, 3)
    c.add("aten::convolution_overrideable", x, w, r(6), [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
          ref=lambda *a: torch.convolution(*a))
    c.add("aten::convolution_overrideable", r(2, 4, 20), r(6, 2, 3), None, [2], [0], [1], False, [0], 2,
          ref=lambda *a: torch.convolution(*a))
    for x in [r(1, 3, 1, 5), r(2, 1), r(1), torch.tensor(2.0), torch.arange(6).reshape(1, 6, 1)]:
        c.add("aten::squeeze", x)
        for d in range(-x.dim(), max(x.dim(), 1)):
            c.add("aten::squeeze.dim", x, d)
    c.add("aten::squeeze.dims", r(1, 3, 1, 5), [0, 2], ref=lambda t, d: t.squeeze(0).squeeze(1))
    c.add("aten::squeeze.dims", r(1, 3, 1, 5), [1, -2], ref=lambda t, d: t.squeeze(-2))
    c.error("aten::squeeze.dim", r(2, 3), 2)
    for ts in [[r(3, 1), r(1, 4)], [r(2, 3, 4), r(4), torch.tensor(1.5)], [r(5)]]:
        c.add("aten::broadcast_tensors", ts, ref=lambda t: tuple(torch.broadcast_tensors(*t)))
    c.error("aten::broadcast_tensors", [r(3), r(4)], ref=lambda t: torch.broadcast_tensors(*t))
    c.add("aten::new_empty", r(2, 3), [4, 5], None, None, None, None, ref=lambda *a: torch.zeros(4, 5))
    c.add("aten::new_empty", torch.arange(3), [2], None, None, None, None, ref=lambda *a: torch.zeros(2, dtype=torch.int64))
    c.add("aten::scalar_tensor", 2.5, None, None, None, None)
    c.add("aten::scalar_tensor", 3, None, None, None, None)
    c.add("aten::scalar_tensor", 7, 4, None, None, None)
    # Other dtypes widen to what tvk computes in: int32 etc. to int64, float16/64 to float32.
    c.add("aten::arange", 5, 3, None, None, None, ref=lambda *a: torch.arange(5, dtype=torch.int64))
    c.add("aten::arange.start", 1, 7, 1, None, None, None, ref=lambda *a: torch.arange(1, 7, dtype=torch.int64))
    c.add("aten::arange.start_step", 0.5, 3.0, 0.5, 7, None, None, None,
          ref=lambda *a: torch.arange(0.5, 3.0, 0.5, dtype=torch.float32))
    c.add("aten::zeros", [2, 3], 0, None, None, None, ref=lambda *a: torch.zeros(2, 3, dtype=torch.int64))
    c.add("aten::full", [2], 7, 2, None, None, None, ref=lambda *a: torch.full([2], 7, dtype=torch.int64))
    # Random fills: shapes here (values differ from torch's stream by design); their
    # statistics are checked in api_test.cpp.
    for x in [r(3, 4), r(2, 1, 5), r(0, 3), torch.tensor(1.0)]:
        c.add("aten::rand_like", x, None, None, None, None, None, meta=True)
        c.add("aten::randn_like", x, None, None, None, None, None, meta=True)
        c.add("aten::uniform_", x, -2.0, 3.0, None, meta=True, ref=lambda t, a, b, g: t.uniform_(a, b))
        c.add("aten::normal_", x, 1.0, 0.5, None, meta=True, ref=lambda t, m, s, g: t.normal_(m, s))
    c.error("aten::uniform_", r(3), 2.0, 1.0, None, ref=lambda t, a, b, g: t.uniform_(a, b))
    c.error("aten::normal_", r(3), 0.0, -1.0, None, ref=lambda t, m, s, g: t.normal_(m, s))
    for x in [r(4, 3), r(1), torch.arange(5)]:
        c.add("aten::len.Tensor", x, ref=lambda t: len(t))
    c.error("aten::len.Tensor", torch.tensor(1.0), ref=lambda t: len(t))
    for x in [torch.tensor(3.5), torch.tensor([7]), torch.tensor(True)]:
        c.add("aten::_local_scalar_dense", x, ref=lambda t: t.item())

    # ---- recurrent layers ----
    def rnn_params(mode, inp, hidden, layers, dirs, bias, proj=0):
        gates = {"lstm": 4, "gru": 3}.get(mode, 1)
        out = []
        for l in range(layers):
            for _ in range(dirs):
                size = inp if l == 0 else (proj or hidden) * dirs
                out += [r(gates * hidden, size) * 0.4, r(gates * hidden, proj or hidden) * 0.4]
                if bias:
                    out += [r(gates * hidden) * 0.3, r(gates * hidden) * 0.3]
                if proj:
                    out.append(r(proj, hidden) * 0.4)
        return out

    for mode in ["lstm", "gru", "rnn_tanh", "rnn_relu"]:
        for inp, hidden, layers, bidir, bias, batch_first, steps, batch, proj in [
                (5, 8, 1, False, True, False, 6, 2, 0), (4, 6, 2, True, True, True, 5, 3, 0),
                (3, 5, 2, False, False, False, 4, 1, 0), (6, 4, 1, True, True, True, 1, 2, 0),
                (5, 8, 2, True, True, False, 3, 2, 3)]:
            if proj and mode != "lstm":
                continue
            dirs = 2 if bidir else 1
            params = rnn_params(mode, inp, hidden, layers, dirs, bias, proj)
            x = r(batch, steps, inp) if batch_first else r(steps, batch, inp)
            h0 = r(layers * dirs, batch, proj or hidden) * 0.5
            if mode == "lstm":
                c0 = r(layers * dirs, batch, hidden) * 0.5
                c.add("aten::lstm.input", x, [h0, c0], params, bias, layers, 0.0, False, bidir, batch_first)
            else:
                c.add(f"aten::{mode}.input", x, h0, params, bias, layers, 0.0, False, bidir, batch_first)
    c.error("aten::lstm.input", r(4, 2, 5), [r(1, 2, 8), r(1, 2, 8)], rnn_params("lstm", 6, 8, 1, 1, True), True, 1,
            0.0, False, False, False)  # input size 5 against weights for 6
    c.error("aten::gru.input", r(4, 2, 5), r(2, 2, 8), rnn_params("gru", 5, 8, 1, 1, True), True, 1, 0.0, False, False,
            False)  # h0 for two layers
    for x in [r(3, 5), r(1, 5)]:
        hx, cx = r(*x.shape[:-1], 7), r(*x.shape[:-1], 7)
        w_ih, w_hh, b_ih, b_hh = r(28, 5), r(28, 7), r(28), r(28)
        c.add("aten::lstm_cell", x, [hx, cx], w_ih, w_hh, b_ih, b_hh)
        c.add("aten::lstm_cell", x, [hx, cx], w_ih, w_hh, None, None)
        c.add("aten::gru_cell", x, hx, w_ih[:21], w_hh[:21], b_ih[:21], b_hh[:21])

    def lstm_gates(gx, t, gh, cell):
        i, f, g, o = (gx[t] + gh).chunk(4, 1)
        cell = torch.sigmoid(f) * cell + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(cell), cell

    def gru_gates(gx, t, gh, h):
        xr, xz, xn = gx[t].chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        rr, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
        return (1 - z) * torch.tanh(xn + rr * hn) + z * h

    for steps, batch, hidden, t in [(3, 2, 5, 1), (1, 1, 1, 0), (4, 3, 9, 3)]:
        c.add("tvk::lstm_gates", r(steps, batch, 4 * hidden) * 2, t, r(batch, 4 * hidden) * 2, r(batch, hidden),
              ref=lstm_gates)
        c.add("tvk::gru_gates", r(steps, batch, 3 * hidden) * 2, t, r(batch, 3 * hidden) * 2, r(batch, hidden),
              ref=gru_gates)
    c.error("tvk::lstm_gates", r(3, 2, 20), 3, r(2, 20), r(2, 5), ref=lambda gx, t, gh, cc: gx[t])

    generate_math(torch, c)


def generate_math(torch, c):
    """Math, norms, layout, resampling and factories added for the model families (issue 48)."""
    torch.manual_seed(4321)
    r = torch.randn
    nan, inf = float("nan"), float("inf")
    special = torch.tensor([nan, inf, -inf, 0.0, -0.0, -1.5, 2.5, 0.3, -0.7, 1e30])
    # Trigonometric, hyperbolic and other pointwise functions (in-place forms too); inputs in
    # each function's domain, plus NaN and infinities.
    domains = {"tan": r(3, 7) * 1.4, "asin": torch.rand(3, 7) * 2 - 1, "acos": torch.rand(3, 7) * 2 - 1,
               "atan": r(3, 7) * 5, "sinh": r(3, 7) * 3, "cosh": r(3, 7) * 3, "asinh": r(3, 7) * 5,
               "acosh": torch.rand(3, 7) * 9 + 1, "atanh": torch.rand(3, 7) * 1.98 - 0.99, "erfc": r(3, 7) * 2,
               "exp2": r(3, 7) * 4, "frac": r(3, 7) * 5}
    for name, x in domains.items():
        c.add(f"aten::{name}", x)
        c.add(f"aten::{name}_", x)
        # 1e30 is left out of tan: a float32 GPU tan reduces huge arguments loosely.
        c.add(f"aten::{name}", (special if name != "tan" else special[:9]).reshape(-1, 3 if name == "tan" else 5))
    c.add("aten::sinh", torch.tensor([1e-3, -2e-4, 0.1, -0.2, 0.26, 0.0]))  # the series' range and its edge
    c.add("aten::asinh", torch.tensor([1e-3, -2e-4, 0.1, -0.2, 0.26, 0.0]))
    c.add("aten::softshrink", r(4, 5), 0.5)
    c.add("aten::softshrink", special, 1.0)
    c.add("aten::sgn", r(2, 5))
    c.add("aten::square", r(3, 4))
    c.add("aten::square_", r(3, 4))
    c.add("aten::square", torch.tensor([3, -4]))
    # atan2 and fmod with broadcasting, signed zeros and infinities; integer fmod.
    y, x = r(3, 1, 5) * 3, r(4, 1) * 3
    c.add("aten::atan2", y, x)
    zeros = torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, inf, -inf, inf, nan])
    c.add("aten::atan2", zeros, torch.tensor([0.0, 0.0, -0.0, -0.0, -inf, inf, inf, -inf, -inf, 1.0]))
    c.add("aten::fmod.Tensor", r(3, 5) * 7, r(5) + 2.5)
    c.add("aten::fmod.Tensor", torch.tensor([7, -7, 9, -9]), torch.tensor([2, 2, -4, -4]))
    c.add("aten::fmod.Scalar", r(3, 5) * 7, 1.5)
    c.add("aten::fmod.Scalar", r(3, 5) * 7, -2)
    c.add("aten::fmod.Scalar", torch.tensor([7, -7]), 3)
    c.add("aten::div.Tensor_mode", r(2, 3, 4) * 9, r(3, 1) + 2, "floor")
    c.add("aten::div.Scalar_mode", r(2, 5) * 9, 0.7, "floor")
    c.add("aten::div.Scalar_mode", r(2, 5) * 9, -1.3, "trunc")
    c.add("aten::div.Scalar_mode", r(2, 5) * 9, 4.0, None)
    c.add("aten::maximum", r(2, 1, 4), r(3, 1))
    c.add("aten::minimum", r(2, 1, 4), r(3, 1))
    c.add("aten::minimum", special, special.flip(0))
    for cmp in ["eq", "ne", "gt", "lt", "ge", "le"]:
        a = torch.round(r(2, 3, 5))
        c.add(f"aten::{cmp}.Tensor", a, torch.round(r(3, 1)))
        c.add(f"aten::{cmp}.Tensor", special, special.flip(0))
    # Aliases and clamps by tensors.
    for name in ["detach", "detach_", "lift_fresh", "alias", "lift_fresh_copy"]:
        c.add(f"aten::{name}", r(2, 3))
    lo, hi = r(3, 1) - 1, r(5) + 1
    c.add("aten::clamp.Tensor", r(3, 5) * 2, lo, hi)
    c.add("aten::clamp.Tensor", r(3, 5) * 2, None, hi)
    c.add("aten::clamp.Tensor", r(3, 5) * 2, hi, lo)  # min above max: max wins, as in torch
    c.add("aten::clamp_.Tensor", r(3, 5) * 2, lo, None)
    c.add("aten::clamp_min.Tensor", r(3, 5), lo)
    c.add("aten::clamp_max.Tensor", r(3, 5), hi)
    c.error("aten::clamp.Tensor", r(3), None, None)
    # Float classification.
    for name in ["isnan", "isinf", "isposinf", "isneginf", "isfinite"]:
        c.add(f"aten::{name}", special.reshape(5, 2))
        c.add(f"aten::{name}", torch.tensor([3, -1, 0]))
    c.add("aten::nan_to_num", special, None, None, None)
    c.add("aten::nan_to_num", special, 1.5, 100.0, -100.0)
    c.add("aten::nan_to_num_", special.clone(), 0.0, None, -3.0)
    # Arithmetic composites.
    a, b, d = r(3, 4), r(4), r(3, 1) + 3
    c.add("aten::addcmul", a, b, d, 0.5)
    c.add("aten::addcdiv", a, b, d, -2)
    c.add("aten::addcmul_", a, b, d, 1)
    c.add("aten::addcdiv_", a, b, d, 0.25)
    c.add("aten::hypot", r(3, 4) * 3, r(4) * 3)
    c.add("aten::logaddexp", r(3, 4) * 5, r(4) * 5)
    c.add("aten::logaddexp", torch.tensor([inf, -inf, inf, 1.0, nan]), torch.tensor([inf, -inf, -inf, -inf, 0.0]))
    c.add("aten::xlogy.Tensor", torch.tensor([0.0, 0.0, 2.0, 1.5, 0.0]), torch.tensor([0.0, nan, 3.0, 0.5, 4.0]))
    c.add("aten::logit", torch.rand(3, 4), None)
    c.add("aten::logit", torch.tensor([0.0, 1.0, 0.5, 0.01]), 1e-3)
    # Reductions: logsumexp, norms, counts, statistics.
    x = r(3, 4, 5) * 3
    for dims, keep in [([1], False), ([0, 2], True), ([-1], True)]:
        c.add("aten::logsumexp", x, dims, keep)
    c.add("aten::logsumexp", torch.tensor([[-inf, -inf], [inf, 1.0], [nan, 0.0]]), [1], False)
    for ord_ in [2, 1, 3, 0.5, 0, inf, -inf]:
        c.add("aten::linalg_vector_norm", x, ord_, [1], False, None)
        c.add("aten::linalg_vector_norm", x, ord_, None, True, None)
    c.add("aten::norm.ScalarOpt_dim", x, 2, [2], True)
    c.add("aten::norm.ScalarOpt_dim", x, None, [0, 1], False)
    c.add("aten::norm.ScalarOpt_dim", x, 1, [-1], False)
    c.add("aten::norm.ScalarOpt_dim_dtype", x, 2, [1], False, 6,
          ref=lambda t, p, d, k, dt: torch.norm(t, p, d, k, dtype=torch.float32))
    c.add("aten::norm.Scalar", x, 2)
    c.add("aten::norm.Scalar", x, 1)
    c.add("aten::frobenius_norm.dim", x, [1, 2], False)
    m = r(4, 5)
    for ord_, dim in [(None, None), (None, [1]), (2, [0]), (1, None), (-1, [0, 1]), (inf, None), (-inf, [1, 0])]:
        c.add("aten::linalg_norm", m, ord_, dim, False, None)
    c.add("aten::linalg_norm", r(2, 3, 4), inf, [2, 1], True, None)
    c.add("aten::linalg_norm", r(6), 3, None, False, None)
    c.add("aten::linalg_norm.ord_str", m, "fro", None, False, None)
    c.add("aten::linalg_norm.ord_str", r(2, 3, 4), "fro", [0, 2], True, None)
    sparse = torch.where(r(3, 4, 5) > 0.5, r(3, 4, 5), torch.zeros(()))
    c.add("aten::count_nonzero.dim_IntList", sparse, [1, 2])
    c.add("aten::count_nonzero.dim_IntList", sparse, [])
    c.add("aten::count_nonzero", sparse, None)
    c.add("aten::count_nonzero", sparse, -1)
    c.add("aten::dot", r(7), r(7))
    c.add("aten::vdot", r(7), r(7))
    c.error("aten::dot", r(7), r(6))
    c.add("aten::dist", r(3, 4), r(4), 2)
    c.add("aten::dist", r(3, 4), r(4), 1)
    c.add("aten::cosine_similarity", r(3, 8), r(3, 8), 1, 1e-8)
    c.add("aten::cosine_similarity", r(2, 4, 3), r(4, 1), 1, 1e-8)
    c.add("aten::cosine_similarity", torch.zeros(2, 3), r(2, 3), 1, 1e-8)
    c.add("aten::pairwise_distance", r(5, 8), r(5, 8), 2, 1e-6, False)
    c.add("aten::pairwise_distance", r(5, 8), r(8), 1, 1e-6, True)
    c.add("aten::cdist", r(2, 5, 3), r(2, 4, 3), 2, None)
    c.add("aten::cdist", r(5, 3), r(4, 3), 1, None)
    c.error("aten::cdist", r(5, 3), r(4, 2), 2, None)
    x = r(3, 4, 5)
    c.add("aten::var", x, True)
    c.add("aten::std", x, False)
    c.add("aten::var_mean", x, True)
    c.add("aten::std_mean", x, False)
    c.add("aten::var_mean.dim", x, [1], True, True)
    c.add("aten::std_mean.dim", x, [0, 2], False, False)
    c.add("aten::var_mean.correction", x, [2], 0, False)
    c.add("aten::std_mean.correction", x, None, 2, True)
    # Running products.
    for d in [0, 1, -1]:
        c.add("aten::cumprod", torch.rand(3, 4, 5) + 0.5, d, None)
    c.add("aten::cumprod", torch.tensor([[1, 2, 3], [-4, 5, 0]]), 1, None)
    c.add("aten::cumprod", torch.tensor(2.5), 0, None)
    # Layout.
    for k in [0, 1, -2, 7]:
        c.add("aten::triu", r(2, 4, 5), k)
        c.add("aten::tril", r(4, 5), k)
    c.add("aten::triu_", r(5, 4), 1)
    c.add("aten::tril_", r(5, 4), -1)
    c.add("aten::triu", torch.tensor([[1, 2], [3, 4]]), 0)
    c.error("aten::triu", r(4), 0)
    x = r(3, 4, 5)
    for off, d1, d2 in [(0, 0, 1), (1, 1, 2), (-2, 2, 0), (9, 0, 1)]:
        c.add("aten::diagonal", x, off, d1, d2)
    c.error("aten::diagonal", x, 0, 1, 1)
    for k in [0, 2, -1]:
        c.add("aten::diag", r(4), k)
        c.add("aten::diag", r(3, 5), k)
    c.add("aten::movedim.int", x, 0, -1)
    c.add("aten::movedim.intlist", x, [0, 1], [2, 0])
    c.add("aten::moveaxis.int", x, 2, 0)
    c.add("aten::moveaxis.intlist", x, [2], [1])
    c.error("aten::movedim.intlist", x, [0, 0], [1, 2])
    for k in [1, 2, 3, -1, 0]:
        c.add("aten::rot90", x, k, [1, 2])
    c.add("aten::rot90", x, 1, [2, 0])
    c.error("aten::rot90", x, 1, [1, 1])
    for name in ["hstack", "vstack", "row_stack", "dstack", "column_stack"]:
        c.add(f"aten::{name}", [r(3), r(3)])
        c.add(f"aten::{name}", [r(2, 3), r(2, 3)])
        c.add(f"aten::{name}", [r(2, 3, 4), r(2, 3, 4)])
    c.add("aten::hstack", [torch.tensor(1.5), r(2)])
    c.add("aten::mv", r(4, 5), r(5))
    c.add("aten::outer", r(4), r(3))
    c.add("aten::ger", r(4), r(3))
    # F.fold (col2im): strided, padded, dilated, unbatched, and blocks that stop short of the edge.
    for (ch, size, k, d, p, st) in [(2, (5, 6), (2, 3), (1, 1), (0, 1), (1, 2)), (3, (7, 7), (3, 3), (2, 1), (1, 2), (2, 2)),
                                    (1, (4, 5), (1, 1), (1, 1), (0, 0), (1, 1)), (2, (8, 9), (3, 2), (1, 2), (1, 0), (3, 2))]:
        blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // st[i] + 1 for i in range(2)]
        cols = r(2, ch * k[0] * k[1], blocks[0] * blocks[1])
        c.add("aten::col2im", cols, list(size), list(k), list(d), list(p), list(st))
    c.add("aten::col2im", r(4, 12), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])
    c.error("aten::col2im", r(1, 4, 11), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])
    # Transposed 3-D convolutions: strides, padding, output padding, groups, dilation, unbatched.
    c.add("aten::conv_transpose3d.input", r(1, 3, 3, 4, 5), r(3, 4, 3, 3, 3), r(4), [2, 2, 2], [1, 1, 1], [0, 0, 0], 1, [1, 1, 1])
    c.add("aten::conv_transpose3d.input", r(2, 4, 3, 4, 4), r(4, 3, 2, 3, 1), None, [3, 1, 2], [0, 1, 0], [1, 0, 1], 2,
          [2, 1, 1])
    c.add("aten::conv_transpose3d.input", r(2, 3, 4, 5), r(2, 3, 2, 2, 2), r(3), [2, 2, 2], [0, 0, 0], [0, 0, 0], 1, [1, 1, 1])
    c.error("aten::conv_transpose3d.input", r(1, 3, 3, 4, 5), r(3, 4, 3, 3, 3), None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1,
            [1, 1, 1])
    # Resizing: nearest-exact in 1, 2 and 3 dims, bicubic with and without align_corners.
    for size in [[7, 9], [3, 2], [5, 5]]:
        c.add("aten::_upsample_nearest_exact2d", r(1, 2, 5, 5), size, None, None)
    c.add("aten::_upsample_nearest_exact2d.vec", r(2, 3, 4, 5), None, [1.5, 2.0])
    c.add("aten::_upsample_nearest_exact1d", r(2, 3, 5), [8], None)
    c.add("aten::_upsample_nearest_exact1d.vec", r(2, 3, 5), None, [0.6])
    c.add("aten::_upsample_nearest_exact3d", r(1, 2, 3, 4, 5), [5, 3, 7], None, None, None)
    c.add("aten::_upsample_nearest_exact3d.vec", r(1, 2, 3, 4, 5), None, [2.0, 1.0, 0.5])
    for align in [False, True]:
        c.add("aten::upsample_bicubic2d", r(2, 3, 5, 6), [9, 4], align, None, None)
        c.add("aten::upsample_bicubic2d", r(1, 2, 4, 4), [4, 4], align, None, None)
        c.add("aten::upsample_bicubic2d.vec", r(1, 2, 5, 3), None, align, [2.0, 1.5])
    c.add("aten::upsample_bicubic2d", r(1, 2, 1, 1), [3, 2], False, None, None)
    c.error("aten::upsample_bicubic2d", r(3, 4, 4), [8, 8], False, None, None)
    # grid_sample: every interpolation and padding mode, both align_corners, points outside
    # [-1, 1] and on pixel centres.
    inp = r(2, 3, 5, 6)
    grid = torch.rand(2, 4, 7, 2) * 2.6 - 1.3
    for mode in [0, 1, 2]:
        for padding in [0, 1, 2]:
            for align in [False, True]:
                c.add("aten::grid_sampler", inp, grid, mode, padding, align)
    c.add("aten::grid_sampler_2d", inp, grid, 0, 0, False)
    c.add("aten::grid_sampler_2d", r(1, 1, 1, 1), grid[:1], 0, 1, True)  # a single pixel
    c.error("aten::grid_sampler", inp, r(3, 4, 7, 2), 0, 0, False)
    # F.affine_grid in 2-D and 3-D, both align_corners, a size of one.
    for align in [False, True]:
        c.add("aten::affine_grid_generator", r(2, 2, 3), [2, 3, 5, 4], align)
        c.add("aten::affine_grid_generator", r(1, 3, 4), [1, 2, 3, 4, 2], align)
    c.add("aten::affine_grid_generator", r(1, 2, 3), [1, 1, 1, 6], False)
    c.error("aten::affine_grid_generator", r(2, 3, 3), [2, 3, 5, 4], False)
    # Products, any / all on both devices.
    x = torch.rand(3, 4, 5) + 0.5
    c.add("aten::prod.dim_int", x, 1, False, None)
    c.add("aten::prod.dim_int", x, -1, True, None)
    c.add("aten::prod.dim_int", torch.tensor([[2, 3], [-4, 5]]), 0, False, None)
    c.add("aten::prod", torch.rand(2, 5) + 0.5, None)
    c.add("aten::prod", torch.tensor([[2, 3], [-4, 0]]), None)
    c.add("aten::prod", r(0, 3), None)
    for name in ["any.dim", "all.dim"]:
        c.add(f"aten::{name}", r(3, 5) > 0, 1, False)
        c.add(f"aten::{name}", torch.round(r(3, 5)), 0, True)
        c.add(f"aten::{name}", r(0, 4) > 0, 0, False)
    # Scatters and index_add (CPU kernels; the in-place forms through copy_).
    src = r(3, 5)
    idx = torch.tensor([[0, 1, 2, 0, 1], [2, 0, 1, 2, 0]])
    c.add("aten::scatter.src", torch.zeros(3, 5), 0, idx, src)
    c.add("aten::scatter.value", torch.zeros(3, 5), 1, torch.tensor([[4], [0], [3]]), 2.5)
    c.add("aten::scatter_add", torch.zeros(4, 5), 0, idx, src)
    c.add("aten::scatter_add", torch.zeros(3, 6, dtype=torch.int64), 1, torch.tensor([[0, 5, 5], [1, 1, 1]]),
          torch.tensor([[1, 2, 3], [4, 5, 6]]))
    c.add("aten::scatter_.src", torch.zeros(3, 5), 0, idx, src)
    c.add("aten::scatter_.value", torch.zeros(3, 5), 1, torch.tensor([[4], [0], [2]]), -1.0)
    c.add("aten::scatter_add_", torch.ones(3, 5), 0, idx, src)
    c.error("aten::scatter_add", torch.zeros(2, 5), 0, torch.tensor([[3, 0]]), r(1, 2))
    c.add("aten::index_add", r(4, 3), 0, torch.tensor([0, 2, 2]), r(3, 3), 1)
    c.add("aten::index_add", r(2, 5), 1, torch.tensor([4, 0]), r(2, 2), -0.5)
    c.add("aten::index_add_", r(4, 3), 0, torch.tensor([3, 1]), r(2, 3), 2)
    c.add("aten::index_put", r(4, 3), [torch.tensor([0, 2])], r(2, 3), False)
    c.add("aten::index_put", r(4, 3), [torch.tensor([0, 0]), torch.tensor([1, 1])], torch.tensor([1.0, 2.0]), True)
    c.add("aten::gather", r(3, 4, 5), 2, torch.tensor([[[4, 0], [1, 1], [2, 3], [0, 0]]] * 3), False)
    # Views, splits, repeats.
    x = r(2, 9, 4)
    c.add("aten::unfold", x, 1, 3, 2)
    c.add("aten::unfold", x, -1, 4, 1)
    c.add("aten::unfold", r(10), 0, 5, 5)
    c.error("aten::unfold", x, 1, 10, 1)
    c.add("aten::unflatten.int", x, 1, [3, 3], None)
    c.add("aten::unflatten.int", x, -1, [2, -1], None)
    c.add("aten::channel_shuffle", r(1, 6, 2, 3), 3)
    c.add("aten::native_channel_shuffle", r(2, 4, 3, 3), 2)
    c.add("aten::repeat_interleave.self_int", x, 2, 1, None)
    c.add("aten::repeat_interleave.self_int", x, 3, None, None)
    c.add("aten::repeat_interleave.self_Tensor", x, torch.tensor([1, 0, 2, 1]), 2, None)
    c.add("aten::repeat_interleave.self_Tensor", r(3), torch.tensor([2]), 0, None)
    c.add("aten::repeat_interleave.Tensor", torch.tensor([2, 0, 3]), None)
    split = lambda t, how, d: tuple(torch.tensor_split(t, how, d))
    for sections in [2, 4]:
        c.add("aten::tensor_split.sections", x, sections, 1, ref=split)
    c.add("aten::tensor_split.indices", x, [2, 7], 1, ref=split)
    c.add("aten::tensor_split.indices", x, [5, 3, 20], 1, ref=split)
    c.add("aten::tensor_split.indices", x, [-4, 8], 1, ref=split)
    c.add("aten::tensor_split.tensor_indices_or_sections", x, torch.tensor([1, 3]), 2, ref=split)
    c.add("aten::tensor_split.tensor_indices_or_sections", x, torch.tensor(3), 1, ref=split)
    c.add("aten::one_hot", torch.tensor([[0, 2], [1, 4]]), -1)
    c.add("aten::one_hot", torch.tensor([3, 0]), 6)
    c.error("aten::one_hot", torch.tensor([3, 0]), 2)
    c.add("aten::new_ones", r(2), [3, 2], None, None, None, None, ref=lambda t, sz, *a: t.new_ones(sz))
    c.add("aten::rrelu", special, 0.1, 0.3, False, None, ref=lambda t, lo, hi, tr, g: torch.rrelu(t, lo, hi, tr))
    c.add("aten::rrelu_", r(3, 4), 0.125, 1 / 3, False, None, ref=lambda t, lo, hi, tr, g: torch.rrelu_(t, lo, hi, tr))
    c.add("aten::alpha_dropout", r(3, 4), 0.3, False)
    c.add("aten::feature_alpha_dropout", r(2, 3, 4), 0.5, False)
    c.add("aten::abs", torch.tensor([-3, 4, 0, -9223372036854775807]))
    c.add("aten::neg", torch.tensor([-3, 4, 0]))
    # torchvision's roi_align: boxes inside, across the edge and outside, tiny and large; both
    # alignments, adaptive and fixed sampling grids, a feature stride.
    import torchvision
    feats = r(2, 3, 10, 12)
    rois = torch.tensor([[0, 1.0, 1.0, 8.0, 6.0], [1, 0.5, 2.0, 11.5, 9.5], [0, -3.0, -2.0, 4.0, 3.0],
                         [1, 10.0, 8.0, 30.0, 20.0], [0, 5.0, 5.0, 5.2, 5.1], [1, 20.0, 20.0, 25.0, 25.0]])
    roi = lambda f, b, sc, ph, pw, sr, al: torchvision.ops.roi_align(f, b, (ph, pw), sc, sr, al)
    for scale, ph, pw, sr, al in [(1.0, 3, 3, 0, False), (1.0, 2, 4, 2, True), (0.5, 7, 7, 0, True), (2.0, 1, 1, 1, False)]:
        c.add("torchvision::roi_align", feats, rois, scale, ph, pw, sr, al, ref=roi)
    c.add("torchvision::roi_align", feats, torch.zeros(0, 5), 1.0, 2, 2, 0, False, ref=roi)
    c.error("torchvision::roi_align", feats, rois[:, :4], 1.0, 2, 2, 0, False, ref=roi)
    # Bitwise and / or / xor: bool masks (either device) and int64.
    ma, mb = r(3, 4) > 0, r(4) > 0
    for name in ["bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_xor.Tensor", "__and__.Tensor", "__or__.Tensor",
                 "__xor__.Tensor"]:
        c.add(f"aten::{name}", ma, mb)
        c.add(f"aten::{name}", torch.tensor([[5, 12], [-3, 0]]), torch.tensor([6, 10]))
    for name in ["__iand__.Tensor", "__ior__.Tensor", "__ixor__.Tensor", "bitwise_and_.Tensor", "bitwise_or_.Tensor"]:
        c.add(f"aten::{name}", ma.clone(), mb)
    # Anti-aliased resizing: down (the filter widened), up, both alignments, by size and scale.
    for name in ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"]:
        for size, align in [([5, 4], False), ([3, 7], True), ([17, 20], False), ([12, 9], True)]:
            c.add(f"aten::{name}", r(2, 3, 12, 9), size, align, None, None)
        c.add(f"aten::{name}.vec", r(1, 2, 10, 10), None, False, [0.35, 0.5])
        c.add(f"aten::{name}.vec", r(1, 2, 6, 5), [3, 11], False, None)
    # Max pooling with indices and its inverse (SegNet / ENet decoders).
    pooled = lambda *a: tuple(torch.ops.aten.max_pool2d_with_indices(*a))
    for k, st, p, d, ceil in [([2, 2], [2, 2], [0, 0], [1, 1], False), ([3, 3], [2, 2], [1, 1], [1, 1], True),
                              ([3, 2], [1, 2], [0, 1], [2, 1], False)]:
        c.add("aten::max_pool2d_with_indices", r(2, 3, 9, 8), k, st, p, d, ceil, ref=pooled)
    c.add("aten::max_pool2d_with_indices", torch.tensor([[[[1.0, nan], [3.0, 3.0]]]]), [2, 2], [2, 2], [0, 0], [1, 1],
          False, ref=pooled)
    v, i = torch.ops.aten.max_pool2d_with_indices(r(2, 3, 8, 6), [2, 2], [2, 2], [0, 0], [1, 1], False)
    c.add("aten::max_unpool2d", v, i, [8, 6])
    c.add("aten::max_unpool2d", v[0], i[0], [8, 7])
    # torch.where with numbers, isclose.
    cond = r(3, 4) > 0
    c.add("aten::where.ScalarOther", cond, r(3, 4), 0.5)
    c.add("aten::where.ScalarSelf", cond, -1.0, r(4))
    c.add("aten::where.Scalar", cond, 1.0, 0.0)
    c.add("aten::where.ScalarOther", cond, torch.tensor([[1, 2, 3, 4]]), 7)
    base = r(3, 4)
    near = base + torch.tensor([0.0, 1e-6, 1e-3, nan])
    c.add("aten::isclose", base, near, 1e-05, 1e-08, False)
    c.add("aten::isclose", near, near, 1e-05, 1e-08, True)
    c.add("aten::isclose", torch.tensor([inf, -inf, 1.0]), torch.tensor([inf, inf, 1.0 + 1e-9]), 1e-05, 1e-08, False)
    # Factories.
    dtypes = {None: torch.float32, 6: torch.float32, 4: torch.int64}
    for start, end, steps in [(0, 1, 5), (-2.5, 3, 7), (3, -1, 1), (0, 10, 0), (1, 2, 2)]:
        c.add("aten::linspace", start, end, steps, None, None, None, None,
              ref=lambda a, b, n, *x: torch.linspace(a, b, n))
        c.add("aten::logspace", start, end, steps, 2.0, None, None, None, None,
              ref=lambda a, b, n, base, *x: torch.logspace(a, b, n, base))
    c.add("aten::linspace", 0, 100, 11, 4, None, None, None, ref=lambda a, b, n, *x: torch.linspace(a, b, n, dtype=torch.int64))
    c.add("aten::logspace", -1, 1, 5, 10.0, None, None, None, None, ref=lambda a, b, n, base, *x: torch.logspace(a, b, n, base))
    c.error("aten::linspace", 0, 1, -1, None, None, None, None, ref=lambda a, b, n, *x: torch.linspace(a, b, n))
    c.add("aten::eye", 4, None, None, None, None, ref=lambda n, *x: torch.eye(n))
    c.add("aten::eye.m", 3, 5, None, None, None, None, ref=lambda n, m, *x: torch.eye(n, m))
    c.add("aten::eye.m", 4, 2, 4, None, None, None, ref=lambda n, m, dt, *x: torch.eye(n, m, dtype=dtypes[dt]))


if __name__ == "__main__":
    main()
