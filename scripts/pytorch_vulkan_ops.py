#!/usr/bin/env python3
"""PyTorch's final Vulkan backend's op set (the registrations in pytorch/pytorch's
aten/src/ATen/native/vulkan/ops/*.cpp, TORCH_LIBRARY_IMPL(aten, Vulkan) and the vulkan_prepack /
vulkan_quantized libraries) against tvk's registry, op by op (issue 48).

    pytorch_vulkan_ops.py TVK                 print docs/pytorch-vulkan-ops.md
    pytorch_vulkan_ops.py TVK --check DOC     fail when DOC differs from what TVK has now
"""
import subprocess
import sys

# (file, ops it registers), as read from the final sources.
PYTORCH = [
    ("Batchnorm.cpp", ["aten::batch_norm"]),
    ("BinaryOp.cpp", ["aten::add.Scalar", "aten::add.Tensor", "aten::add_.Scalar", "aten::add_.Tensor", "aten::div.Scalar", "aten::div.Tensor", "aten::div_.Scalar", "aten::div_.Tensor", "aten::floor_divide", "aten::floor_divide.Scalar", "aten::floor_divide_.Scalar", "aten::floor_divide_.Tensor", "aten::mul.Scalar", "aten::mul.Tensor", "aten::mul_.Scalar", "aten::mul_.Tensor", "aten::pow.Scalar", "aten::pow.Tensor_Scalar", "aten::pow.Tensor_Tensor", "aten::pow_.Scalar", "aten::pow_.Tensor", "aten::sub.Scalar", "aten::sub.Tensor", "aten::sub_.Scalar", "aten::sub_.Tensor"]),
    ("Clamp.cpp", ["aten::abs", "aten::abs_", "aten::clamp", "aten::clamp_", "aten::gelu", "aten::gelu_", "aten::hardshrink", "aten::hardshrink_", "aten::hardsigmoid", "aten::hardsigmoid_", "aten::hardswish", "aten::hardswish_", "aten::hardtanh", "aten::hardtanh_", "aten::leaky_relu", "aten::leaky_relu_", "aten::relu", "aten::relu_", "aten::sigmoid", "aten::sigmoid_", "aten::tanh", "aten::tanh_", "aten::threshold"]),
    ("Clone.cpp", ["aten::clone"]),
    ("Concat.cpp", ["aten::cat"]),
    ("Convolution.cpp", ["aten::conv1d", "aten::convolution_overrideable"]),
    ("Expand.cpp", ["aten::expand", "aten::expand_as"]),
    ("Factory.cpp", ["aten::_empty_affine_quantized", "aten::empty.memory_format", "aten::empty_strided"]),
    ("Flip.cpp", ["aten::flip"]),
    ("Glu.cpp", ["aten::glu"]),
    ("Gru.cpp", ["aten::gru.input"]),
    ("Layernorm.cpp", ["aten::layer_norm"]),
    ("Lerp.cpp", ["aten::lerp.Scalar", "aten::lerp.Tensor", "aten::lerp_.Scalar", "aten::lerp_.Tensor"]),
    ("Lstm.cpp", ["aten::lstm.input"]),
    ("MaskedFill.cpp", ["aten::masked_fill.Scalar", "aten::masked_fill.Tensor"]),
    ("Mean.cpp", ["aten::mean.dim"]),
    ("Mm.cpp", ["aten::addmm", "aten::baddbmm", "aten::bmm", "aten::mm"]),
    ("NativeLayerNorm.cpp", ["aten::native_layer_norm"]),
    ("Padding.cpp", ["aten::reflection_pad2d", "aten::replication_pad2d"]),
    ("Permute.cpp", ["aten::permute"]),
    ("Pool.cpp", ["aten::_adaptive_avg_pool2d", "aten::avg_pool2d", "aten::max_pool2d"]),
    ("QuantizedTensor.cpp", ["aten::dequantize.self", "aten::q_scale", "aten::q_zero_point", "aten::quantize_per_tensor", "aten::quantize_per_tensor.tensor_qparams"]),
    ("Random.cpp", ["aten::normal_", "aten::rand_like", "aten::randn_like", "aten::uniform_"]),
    ("Register.cpp", ["vulkan_prepack::conv2d_clamp_prepack", "vulkan_prepack::conv2d_clamp_run", "vulkan_prepack::create_batchnorm_context", "vulkan_prepack::create_conv1d_context", "vulkan_prepack::create_conv2d_context", "vulkan_prepack::create_gru_context", "vulkan_prepack::create_layernorm_context", "vulkan_prepack::create_linear_context", "vulkan_prepack::create_lstm_context", "vulkan_prepack::create_qconv2d_context", "vulkan_prepack::create_qtconv2d_context", "vulkan_prepack::create_tconv2d_context", "vulkan_prepack::run_batchnorm_context", "vulkan_prepack::run_conv1d_context", "vulkan_prepack::run_conv2d_context", "vulkan_prepack::run_gru_context", "vulkan_prepack::run_layernorm_context", "vulkan_prepack::run_linear_context", "vulkan_prepack::run_lstm_context", "vulkan_prepack::run_qconv2d_context", "vulkan_prepack::run_qlinear_context", "vulkan_prepack::run_tconv2d_context", "vulkan_quantized::add", "vulkan_quantized::div", "vulkan_quantized::mul", "vulkan_quantized::sub"]),
    ("Repeat.cpp", ["aten::repeat"]),
    ("Scalar.cpp", ["aten::_local_scalar_dense"]),
    ("Select.cpp", ["aten::select.int"]),
    ("Shape.cpp", ["aten::_reshape_alias", "aten::view"]),
    ("Slice.cpp", ["aten::slice.Tensor"]),
    ("Softmax.cpp", ["aten::_log_softmax", "aten::_softmax"]),
    ("Stack.cpp", ["aten::stack"]),
    ("Sum.cpp", ["aten::sum", "aten::sum.dim_IntList"]),
    ("Tile.cpp", ["aten::tile"]),
    ("Transpose.cpp", ["aten::t", "aten::transpose.int"]),
    ("UnaryOp.cpp", ["aten::exp", "aten::exp_", "aten::log", "aten::log_", "aten::sqrt", "aten::sqrt_"]),
    ("Unsqueeze.cpp", ["aten::unsqueeze"]),
    ("Upsample.cpp", ["aten::upsample_bilinear2d", "aten::upsample_nearest2d"]),
    ("Var.cpp", ["aten::var.dim"]),
    ("Zero.cpp", ["aten::zero_", "aten::zeros"]),
    ("cumsum.cpp", ["aten::cumsum"]),
]


def tvk_ops(tvk):
    out = subprocess.run([tvk, "ops"], check=True, capture_output=True, text=True).stdout.splitlines()
    table = {}
    for line in out[1:]:
        parts = line.split()
        if len(parts) >= 3:
            table[parts[0]] = (parts[1] == "yes", parts[2] == "yes")
    return table


def render(tvk):
    have = tvk_ops(tvk)
    rows, counts = [], [0, 0, 0]
    for source, names in PYTORCH:
        for name in names:
            cpu, vulkan = have.get(name, (False, False))
            counts[0] += 1
            counts[1] += vulkan
            counts[2] += cpu
            rows.append("| `%s` | %s | %s | %s |" % (name, source, "yes" if cpu else "no", "yes" if vulkan else "**no**"))
    head = [
        "# PyTorch's final Vulkan op set against tvk",
        "",
        "Every op PyTorch's last Vulkan backend registered (`aten/src/ATen/native/vulkan/ops/*.cpp` in",
        "pytorch/pytorch: its `TORCH_LIBRARY_IMPL(aten, Vulkan)` kernels and the `vulkan_prepack` and",
        "`vulkan_quantized` ops), and whether tvk has a CPU and a Vulkan kernel for it. Written by",
        "`scripts/pytorch_vulkan_ops.py build/tvk`; the test `docs.pytorch_vulkan_ops` fails when this",
        "table and `tvk ops` disagree.",
        "",
        ("tvk has a Vulkan kernel for %d of these %d ops and a CPU kernel for %d. Ops tvk has beyond "
         "them are listed by `tvk ops`.") % (counts[1], counts[0], counts[2]),
        "",
        "| op | PyTorch file | tvk CPU | tvk Vulkan |",
        "|---|---|---|---|",
    ]
    return "\n".join(head + rows) + "\n"


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        want = render(sys.argv[1])
        have = open(sys.argv[3]).read()
        if want != have:
            sys.exit("%s is out of date: run scripts/pytorch_vulkan_ops.py %s > %s" % (sys.argv[3], sys.argv[1], sys.argv[3]))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
