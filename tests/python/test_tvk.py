"""The Python package against PyTorch: the seed's workflow end to end, tensors, interop, errors.

Run by CTest (label python) with PYTHONPATH=build/python and Debian's /usr/bin/python3, whose
torch and torchvision are the oracle."""
import io
import os
import threading
from typing import List

import numpy as np
import pytest
import torch
import torchvision

import tvk
from tvk.utils.mobile_optimizer import MobileOptimizerType, optimize_for_mobile

needs_vulkan = pytest.mark.skipif(
    not tvk.is_vulkan_available() and os.environ.get("TVK_REQUIRE_VULKAN") != "1", reason="no Vulkan device"
)


def rel_diff(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    return np.abs(got - expected).max() / np.abs(expected).max()


@pytest.fixture(scope="module")
def mobilenet(tmp_path_factory):
    """torchvision mobilenet_v2 with random weights, scripted and saved as torch.jit.save does."""
    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2().eval()
    path = tmp_path_factory.mktemp("models") / "mobilenet_v2.pt"
    scripted = torch.jit.script(model)
    torch.jit.save(scripted, str(path))
    x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected = model(x)
    return scripted, path, x, expected


@needs_vulkan
def test_seed_workflow_optimize_save_load_run_on_vulkan(mobilenet, tmp_path):
    scripted, path, x, expected = mobilenet
    assert tvk.is_vulkan_available()
    module = tvk.jit.load(path)
    optimized = optimize_for_mobile(module, backend="vulkan")
    assert optimized.optimized_for_vulkan
    out_path = tmp_path / "mobilenet2-vulkan.pt"
    optimized.save(out_path)
    loaded = tvk.jit.load(out_path)
    # torch in, torch out; numpy in, numpy out; tvk in, tvk out.
    y = loaded(x)
    assert isinstance(y, torch.Tensor) and y.shape == (1, 1000)
    assert rel_diff(y.numpy(), expected.numpy()) <= 1e-4
    y_np = loaded(x.numpy())
    assert isinstance(y_np, np.ndarray)
    assert rel_diff(y_np, expected.numpy()) <= 1e-4
    y_tvk = loaded(tvk.from_numpy(x.numpy()))
    assert isinstance(y_tvk, tvk.Tensor) and y_tvk.device == "cpu"
    assert rel_diff(y_tvk.numpy(), expected.numpy()) <= 1e-4


@needs_vulkan
def test_tuning_mode_is_a_load_option_and_a_module_setting(mobilenet):
    # "on" (which writes the device's table) is tested in C++ and through `tvk tune`; here the
    # option reaches the module and the results stay torch's.
    scripted, path, x, expected = mobilenet
    assert tvk.jit.load(path, device="vulkan").tuning is None
    module = tvk.jit.load(path, device="vulkan", tuning="off")
    assert module.tuning == "off"
    assert rel_diff(module(x).numpy(), expected.numpy()) <= 1e-4
    module.set_tuning("cached")
    assert module.tuning == "cached"
    assert rel_diff(module(x).numpy(), expected.numpy()) <= 1e-4
    with pytest.raises(tvk.Error, match="tuning 'sometimes' is not one of off, cached, on"):
        module.set_tuning("sometimes")


def test_extra_files_are_kept_through_optimize_and_save(mobilenet, tmp_path):
    import zipfile

    scripted = mobilenet[0]
    with_extras = tmp_path / "with_extras.pt"
    torch.jit.save(scripted, str(with_extras), _extra_files={"labels.txt": "cat\ndog\n", "meta.json": '{"v": 1}'})
    module = tvk.jit.load(with_extras)
    assert module.extra_files == {"labels.txt": b"cat\ndog\n", "meta.json": b'{"v": 1}'}
    optimized = optimize_for_mobile(module)
    optimized.set_extra_file("added.txt", "added")
    out = tmp_path / "optimized.pt"
    optimized.save(out)
    with zipfile.ZipFile(out) as z:
        assert {n.split("/", 1)[1] for n in z.namelist() if "/extra/" in n} == {
            "extra/labels.txt", "extra/meta.json", "extra/added.txt"}
    assert tvk.jit.load(out).extra_files == {"labels.txt": b"cat\ndog\n", "meta.json": b'{"v": 1}',
                                             "added.txt": b"added"}
    with pytest.raises(tvk.Error):
        optimized.set_extra_file("../outside", b"x")


@needs_vulkan
def test_blocklist_without_automatic_transfer_takes_and_returns_vulkan_tensors(mobilenet):
    scripted, path, x, expected = mobilenet
    optimized = optimize_for_mobile(
        tvk.jit.load(path), optimization_blocklist={MobileOptimizerType.VULKAN_AUTOMATIC_GPU_TRANSFER}
    )
    y = optimized(tvk.from_dlpack(x).vulkan())
    assert isinstance(y, tvk.Tensor) and y.device == "vulkan"
    assert rel_diff(y.cpu().numpy(), expected.numpy()) <= 1e-4


@needs_vulkan
def test_fp16_precision_stays_within_one_percent(mobilenet):
    scripted, path, x, expected = mobilenet
    tvk.set_vulkan_precision("fp16")
    try:
        assert tvk.vulkan_precision() == "fp16"
        y = optimize_for_mobile(tvk.jit.load(path))(x)
    finally:
        tvk.set_vulkan_precision("fp32")
    assert 1e-5 < rel_diff(y.numpy(), expected.numpy()) <= 1e-2


def test_load_from_bytes_file_object_and_torch_module(mobilenet):
    scripted, path, x, expected = mobilenet
    data = path.read_bytes()
    for source in (data, io.BytesIO(data)):
        y = tvk.jit.load(source)(x)
        assert rel_diff(y.numpy(), expected.numpy()) <= 1e-4
    y = tvk.jit.load_torch(scripted)(x)
    assert rel_diff(y.numpy(), expected.numpy()) <= 1e-4


@needs_vulkan
def test_forward_releases_the_gil(mobilenet):
    """Two threads run the model at once; both must give torch's result."""
    scripted, path, x, expected = mobilenet
    module = optimize_for_mobile(tvk.jit.load(path))
    results = [None, None]

    def work(i):
        results[i] = module(x.numpy())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert rel_diff(r, expected.numpy()) <= 1e-4


@pytest.mark.parametrize("device", ["cpu", pytest.param("vulkan", marks=needs_vulkan)])
def test_tensor_round_trips_and_metadata(device):
    a = np.random.RandomState(0).rand(2, 3, 5).astype(np.float32)
    t = tvk.from_numpy(a).to(device)
    assert t.shape == (2, 3, 5) and t.dtype == "float32" and t.device == device
    assert np.array_equal(t.cpu().numpy(), a)
    assert np.array_equal(np.asarray(t), a)
    assert tvk.tensor([1, 2, 3]).dtype == "int64"
    assert tvk.tensor([True, False]).dtype == "bool"
    assert tvk.tensor([[1.5]]).dtype == "float32"
    assert repr(tvk.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    if device == "vulkan":
        assert repr(tvk.tensor([1.0]).vulkan()) == "tensor([1.], device='vulkan')"


@pytest.mark.parametrize("device", ["cpu", pytest.param("vulkan", marks=needs_vulkan)])
def test_ops_as_functions_match_torch(device):
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(3))
    t = tvk.from_dlpack(x).to(device)
    assert rel_diff(tvk.relu(t).cpu().numpy(), torch.relu(x).numpy()) <= 1e-6
    assert rel_diff(tvk.add(t, t, alpha=2).cpu().numpy(), torch.add(x, x, alpha=2).numpy()) <= 1e-6
    assert rel_diff(tvk.softmax(t, 1).cpu().numpy(), torch.softmax(x, 1).numpy()) <= 1e-5
    w = torch.randn(3, 8, generator=torch.Generator().manual_seed(4))
    got = tvk.linear(t, tvk.from_dlpack(w).to(device)).cpu().numpy()
    assert rel_diff(got, torch.nn.functional.linear(x, w).numpy()) <= 1e-5


def test_dlpack_shares_memory_both_ways():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = tvk.from_dlpack(x)
    x[0, 0] = 42.0  # no copy: tvk sees torch's write
    assert t.numpy()[0, 0] == 42.0
    back = torch.from_dlpack(t)
    assert back.data_ptr() == x.data_ptr()
    strided = tvk.from_dlpack(x.t())  # a transposed view keeps its strides
    assert strided.shape == (4, 3) and np.array_equal(strided.contiguous().numpy(), x.t().numpy())
    assert np.array_equal(tvk.from_dlpack(np.arange(5)).numpy(), np.arange(5))


def test_errors_are_python_exceptions_with_the_native_message(tmp_path):
    with pytest.raises(tvk.Error, match="cannot open"):
        tvk.jit.load(tmp_path / "missing.pt")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a zip archive")
    with pytest.raises(tvk.Error):
        tvk.jit.load(bad)
    with pytest.raises(AttributeError, match="aten::no_such_op"):
        tvk.no_such_op
    with pytest.raises(tvk.UnsupportedError, match="dtype"):
        tvk.from_numpy(np.zeros(3, dtype=np.complex64))
    assert issubclass(tvk.UnsupportedError, tvk.Error) and issubclass(tvk.OutOfMemoryError, tvk.Error)
    with pytest.raises(tvk.Error, match="optimize_for_mobile: unknown backend"):
        optimize_for_mobile(tvk.jit.load_torch(torch.jit.script(torch.nn.ReLU())), backend="metal")


def test_torch_save_files_say_how_to_save_torchscript(tmp_path):
    """What torch.save writes is a pickle, not TorchScript: state dicts, whole modules, tensors, in
    the zip format and the pre-1.6 one, each name the fix."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    cases = {"state_dict.pt": (model.state_dict(), True), "module.pt": (model, True),
             "tensor.pt": (torch.ones(3), True), "legacy_state_dict.pt": (model.state_dict(), False)}
    for name, (obj, zip_format) in cases.items():
        path = tmp_path / name
        torch.save(obj, path, _use_new_zipfile_serialization=zip_format)
        with pytest.raises(tvk.UnsupportedError, match=r"torch\.jit\.save\(torch\.jit\.script\(model\), path\)"):
            tvk.jit.load(path)
    scripted = tmp_path / "scripted.pt"
    torch.jit.save(torch.jit.script(model), scripted)
    x = torch.rand(2, 4)
    assert rel_diff(tvk.jit.load(scripted)(x), model(x).detach()) < 1e-6


def test_load_takes_torch_jit_loads_arguments_and_the_module_has_torchs_shape(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    path = tmp_path / "m.pt"
    torch.jit.save(torch.jit.script(model), path, _extra_files={"notes.txt": "hello"})
    x = torch.rand(2, 4)
    for where in ("cpu", torch.device("cpu")) + (("vulkan",) if tvk.is_vulkan_available() else ()):
        extra = {"notes.txt": "", "missing.txt": ""}
        m = tvk.jit.load(path, map_location=where, _extra_files=extra)
        assert extra == {"notes.txt": b"hello", "missing.txt": b""}  # as torch.jit.load fills it
        assert m.device == str(where) and "on %s" % where in repr(m)
        assert m.eval() is m and m.train(False) is m and not m.training
        assert rel_diff(m(x), model(x).detach()) < 1e-5
    with pytest.raises(tvk.UnsupportedError, match="inference only"):
        m.train()
    with pytest.raises(tvk.UnsupportedError, match="tvk runs on 'cpu' or 'vulkan'"):
        tvk.jit.load(path, map_location="cuda:0")
    with pytest.raises(tvk.UnsupportedError, match="map_location as a function"):
        tvk.jit.load(path, map_location=lambda storage, loc: storage)
    state = tvk.jit.load(path).state_dict()
    assert list(state) == list(model.state_dict())
    for name, tensor in state.items():
        assert np.array_equal(tensor.numpy(), model.state_dict()[name].numpy())


def test_rand_and_randn_draw_new_values_and_manual_seed_repeats_them():
    tvk.manual_seed(7)
    a, b, n = tvk.rand(1000), tvk.rand(1000), tvk.randn(1000)
    assert not np.array_equal(a.numpy(), b.numpy())  # no reseeding between calls
    tvk.manual_seed(7)
    assert np.array_equal(tvk.rand(1000).numpy(), a.numpy()) and np.array_equal(tvk.rand(1000).numpy(), b.numpy())
    assert np.array_equal(tvk.randn(1000).numpy(), n.numpy())
    assert np.array_equal(tvk.rand(5, seed=3).numpy(), tvk.rand([5], seed=3).numpy())
    values = n.numpy()
    assert abs(values.mean()) < 0.15 and 0.85 < values.std() < 1.15 and (values < 0).any()
    u = a.numpy()
    assert u.min() >= 0 and u.max() < 1 and 0.4 < u.mean() < 0.6


def _devices():
    return ["cpu"] + (["vulkan"] if tvk.is_vulkan_available() else [])


def test_tensor_operators_indexing_and_methods_match_torch():
    ta, tb = torch.rand(3, 4) + 0.5, torch.rand(3, 4) + 0.5
    cases = {  # name: an expression, run on tvk tensors and on torch tensors
        "add": lambda a, b: a + b, "radd": lambda a, b: 2 + a, "sub": lambda a, b: a - b,
        "rsub": lambda a, b: 1.5 - a, "mul": lambda a, b: a * 3, "div": lambda a, b: a / b,
        "rdiv": lambda a, b: 2 / a, "pow": lambda a, b: a ** 2, "rpow": lambda a, b: 2 ** a,
        "matmul": lambda a, b: a @ b.permute(1, 0), "neg": lambda a, b: -a,
        "abs": lambda a, b: abs(a - b), "select": lambda a, b: a[1],
        "slices": lambda a, b: a[:, 1:3], "steps": lambda a, b: a[None, ..., ::2],
        "negative": lambda a, b: a[-1, -2:], "sum": lambda a, b: a.sum(1),
        "mean": lambda a, b: a.mean(), "softmax": lambda a, b: a.softmax(-1),
        "reshape": lambda a, b: a.reshape(4, 3), "transpose": lambda a, b: a.transpose(0, 1),
        "chain": lambda a, b: ((a + 1) * b).sum(0) / 2,
    }
    cpu_only = {  # ops whose Vulkan kernels tvk lacks (comparisons of two tensors, max)
        "lt": lambda a, b: a < b, "eq": lambda a, b: a == a, "ge": lambda a, b: a >= 0.9,
        "argmax": lambda a, b: a.argmax(), "long": lambda a, b: (a * 10).long(),
        "index": lambda a, b: a[torch.tensor([2, 0])],
    }
    for device in _devices():
        a, b = tvk.from_dlpack(ta).to(device), tvk.from_dlpack(tb).to(device)
        for name, f in list(cases.items()) + (list(cpu_only.items()) if device == "cpu" else []):
            got, expected = f(a, b), f(ta, tb)
            assert isinstance(got, tvk.Tensor) and got.device == device, name
            assert got.shape == tuple(expected.shape), name
            assert np.allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6), (device, name)
        assert len(a) == 3 and a[1, 2].item() == pytest.approx(ta[1, 2].item())
        assert np.allclose(np.array(a.tolist()), ta.numpy())
        # dtypes by name or as torch's and numpy's (Vulkan has no float-to-int64 conversion)
        for name, spellings in {"float32": ("float32", torch.float32, np.float32),
                                "int64": ("int64", torch.int64, np.int64)}.items():
            for dtype in spellings if device == "cpu" or name == "float32" else ():
                assert a.to(dtype).dtype == name and a.to(dtype).device == device
        # in-place methods and operators change the tensor itself (and, on the CPU, its views)
        for f in (lambda x: x.add_(1), lambda x: x.mul_(2)):
            c, tc = a.clone(), ta.clone()
            alias, view = c, c[1]
            f(c)
            f(tc)
            c += 1
            tc += 1
            c /= 4
            tc /= 4
            c -= b
            tc -= tb
            assert c is alias, device
            assert np.allclose(c.cpu().numpy(), tc.numpy(), rtol=1e-5, atol=1e-6), device
            if device == "cpu":
                assert np.allclose(view.numpy(), tc[1].numpy(), rtol=1e-5, atol=1e-6)
        with pytest.raises(IndexError):
            a[3]
        with pytest.raises(AttributeError, match="no_such_method"):
            a.no_such_method()


def test_ops_take_torch_and_numpy_and_say_what_they_are():
    x = torch.rand(2, 3) - 0.5
    got = tvk.relu(x)
    assert isinstance(got, torch.Tensor) and torch.equal(got, torch.relu(x))
    arr = x.numpy()
    got = tvk.add(arr, arr, alpha=2)
    assert isinstance(got, np.ndarray) and np.allclose(got, arr * 3)
    # float64 and int32 are taken as numpy's are: float32 and int64, from torch and numpy alike
    for cast in (lambda t: t, lambda t: t.numpy()):
        got = tvk.relu(cast(x.double()))
        assert np.allclose(np.asarray(got), torch.relu(x).numpy()) and np.asarray(got).dtype == np.float32
        got = np.asarray(tvk.add(cast(torch.arange(3, dtype=torch.int32)), 1))
        assert got.tolist() == [1, 2, 3] and got.dtype == np.int64
    doc = tvk.conv2d.__doc__
    assert "aten::conv2d(Tensor input, Tensor weight" in doc and "kernels: CPU, Vulkan" in doc
    assert tvk.conv2d.__name__ == "conv2d"
    assert "aten::sum" in tvk.rand(2).sum.__doc__


class _TopKHead(torch.nn.Module):
    """A Vulkan convolution followed by ops with CPU kernels only (topk, argmax)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        s = torch.relu(self.conv(x)).mean([2, 3])
        v, i = torch.topk(s, 3)
        return v * 2.0, i, torch.argmax(s, 1)


@needs_vulkan
def test_cpu_fallback_off_raises_on_runs_and_partitions(tmp_path):
    torch.manual_seed(0)
    model = _TopKHead().eval()
    path = str(tmp_path / "topk_head.pt")
    torch.jit.save(torch.jit.script(model), path)
    x = torch.rand(2, 3, 8, 8)
    with torch.no_grad():
        want = model(x)
    module = tvk.jit.load(path, device="vulkan")
    assert not tvk.cpu_fallback_enabled()
    with pytest.raises(tvk.UnsupportedError, match="aten::topk"):
        module(x)
    tvk.set_cpu_fallback(True)
    try:
        got = module(x)
    finally:
        tvk.set_cpu_fallback(False)
    assert rel_diff(got[0], want[0]) <= 1e-5
    assert torch.equal(got[1], want[1]) and torch.equal(got[2], want[2])
    # Partitioned at optimize time, the model runs with the switch off.
    optimized = optimize_for_mobile(tvk.jit.load(path), backend="vulkan", cpu_fallback=True)
    got = optimized(x)
    assert rel_diff(got[0], want[0]) <= 1e-5 and torch.equal(got[1], want[1]) and torch.equal(got[2], want[2])


class _ListSlices(torch.nn.Module):
    """List slicing as TorchScript writes it: torch.slice(list, start, end, step)."""

    def forward(self, x):
        hw = x.shape[-2:]
        odd = [1, 2, 3, 4, 5, 6, 7][1::2]
        tail = [10, 20, 30][-5:2]
        return x * float(hw[0] * 100 + hw[1]) + float((odd[0] + odd[1] + odd[2]) * 1000 + tail[0] + tail[1] + len(odd))


def test_list_slices_follow_python(tmp_path):
    path = str(tmp_path / "list_slices.pt")
    scripted = torch.jit.script(_ListSlices())
    torch.jit.save(scripted, path)
    x = torch.rand(2, 3, 5, 7)
    assert rel_diff(tvk.jit.load(path)(x), scripted(x)) <= 1e-6


class _Spin(torch.nn.Module):
    """Loops as long as it is told to: a stand-in for hostile code that never ends."""

    def forward(self, n: int) -> int:
        total = 0
        i = 0
        while i < n:
            j = 0
            while j < n:
                total += 1
                j += 1
            i += 1
        return total


class _Echo(torch.nn.Module):
    def forward(self, x: List[int]) -> List[int]:
        return x


def test_runs_of_model_code_stop_at_their_limits(tmp_path):
    path = str(tmp_path / "spin.pt")
    torch.jit.save(torch.jit.script(_Spin()), path)
    module = tvk.jit.load(path, max_steps=100000)
    assert module(10) == torch.jit.load(path)(10)  # within the limits: torch's result
    with pytest.raises(tvk.LimitError, match="100000 steps"):
        module(100000)
    unlimited = tvk.jit.load(path, max_steps=2**62)
    with pytest.raises(tvk.LimitError, match="time limit of 0.2 s"):
        unlimited(100000, timeout=0.2)  # a call's own timeout
    unlimited.set_limits(timeout=0.2, max_steps=2**62)
    with pytest.raises(tvk.LimitError, match="time limit"):
        unlimited(100000)
    assert module(10) == 100  # the process and the module go on working
    with pytest.raises(tvk.Error, match="not a size|positive"):
        tvk.jit.load(path, timeout=-1)


def test_hostile_python_values_are_errors_not_crashes(tmp_path):
    path = str(tmp_path / "echo.pt")
    torch.jit.save(torch.jit.script(_Echo()), path)
    module = tvk.jit.load(path)
    assert module([1, 2, 3]) == [1, 2, 3]
    with pytest.raises(tvk.Error, match="does not fit"):
        module([2**70])
    deep = []
    for _ in range(50000):
        deep = [deep]
    with pytest.raises(tvk.Error, match="nested more than"):
        tvk.cat(deep)
    with pytest.raises(tvk.Error, match="nested more than"):
        module(deep)
    assert module([4]) == [4]


@needs_vulkan
def test_nan_and_inf_pixels_give_what_torch_gives(mobilenet):
    """One NaN or infinite pixel: where torch's logits are NaN, tvk's are too, on the CPU, on
    Vulkan and optimized (the fused clamps of relu6 keep NaN)."""
    scripted, path, x, _ = mobilenet
    cpu = tvk.jit.load(path)
    vulkan = tvk.jit.load(path, device="vulkan")
    optimized = optimize_for_mobile(cpu, backend="vulkan")
    for value in [float("nan"), float("inf")]:
        bad = x.clone()
        bad[0, 1, 100, 100] = value
        with torch.no_grad():
            expected = scripted(bad)
        for name, module in [("cpu", cpu), ("vulkan", vulkan), ("optimized", optimized)]:
            got = module(bad)
            assert torch.equal(torch.isnan(got), torch.isnan(expected)), (name, value)
            finite = torch.isfinite(expected)
            assert torch.equal(torch.isfinite(got), finite), (name, value)


class _Encoder(torch.nn.Module):
    """Token ids and a bool padding mask in, the encoding and the mask back out."""

    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(30, 16)
        layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor):
        return self.enc(self.tok(ids), src_key_padding_mask=mask), ~mask


@pytest.mark.parametrize("device", ["cpu", pytest.param("vulkan", marks=needs_vulkan)])
def test_token_ids_and_bool_masks_from_torch(tmp_path, device):
    torch.manual_seed(0)
    model = _Encoder().eval()
    path = str(tmp_path / "encoder.pt")
    torch.jit.save(torch.jit.script(model), path)
    ids = torch.randint(1, 30, (2, 7))
    mask = torch.zeros(2, 7, dtype=torch.bool)
    mask[1, 4:] = True
    with torch.no_grad():
        expected, keep = model(ids, mask)
    got, got_keep = tvk.jit.load(path, device=device)(ids, mask)
    assert got.dtype == torch.float32 and got_keep.dtype == torch.bool
    assert torch.equal(got_keep, keep)
    assert rel_diff(got.numpy(), expected.numpy()) <= 1e-5


class _MaskedAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, mask):
        return self.a(x, x, x, key_padding_mask=mask, need_weights=False)[0]


@needs_vulkan
def test_optimize_takes_example_inputs_for_their_dtypes():
    torch.manual_seed(0)
    model = _MaskedAttention().eval()
    x = torch.randn(2, 6, 16)
    mask = torch.zeros(2, 6, dtype=torch.bool)
    mask[1, 3:] = True
    with torch.no_grad():
        expected = model(x, mask)
    module = tvk.jit.load_torch(torch.jit.script(model))
    optimized = optimize_for_mobile(module, backend="vulkan", example_inputs=[x, mask])
    assert rel_diff(optimized(x, mask).numpy(), expected.numpy()) <= 1e-5
    # Without them the mask is taken as float32, and the model's own dtype check raises.
    with pytest.raises(tvk.Error, match="key_padding_mask"):
        optimize_for_mobile(module, backend="vulkan")(x, mask)


EXPORTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "torch2", "export")


@needs_vulkan
def test_export_programs_load_run_check_their_inputs_and_optimize(tmp_path):
    """A torch.export program (.pt2, written by torch 2.11) through the Python workflow: load,
    run on its sample inputs and on new ones, optimize for Vulkan and save as TorchScript."""
    path = os.path.join(EXPORTS, "dynamic_batch.pt2")
    program = tvk.export.load(path, device="vulkan")
    assert program.is_exported_program
    (x,) = program.example_inputs
    assert rel_diff(program(np.load(os.path.join(EXPORTS, "dynamic_batch_input0.npy"))),
                    np.load(os.path.join(EXPORTS, "dynamic_batch_expected0.npy"))) < 1e-5
    x5 = torch.from_numpy(np.load(os.path.join(EXPORTS, "dynamic_batch_1_input0.npy")))
    assert rel_diff(program(x5), np.load(os.path.join(EXPORTS, "dynamic_batch_1_expected0.npy"))) < 1e-5
    assert tuple(program(x).shape) == (3, 10)
    with pytest.raises(tvk.Error, match=r"size 17 in dimension 0, outside the range \[1, 16\]"):
        program(torch.zeros(17, 3, 32, 32))
    opt = optimize_for_mobile(tvk.jit.load(path), backend="vulkan")
    opt.save(tmp_path / "opt.pt")
    assert rel_diff(tvk.jit.load(tmp_path / "opt.pt")(x5), np.load(os.path.join(EXPORTS, "dynamic_batch_1_expected0.npy"))) < 1e-5
    nested = tvk.export.load(os.path.join(EXPORTS, "nested_outputs.pt2"))
    out = nested(*nested.example_inputs)
    assert list(out) == ["logits", "aux"] and isinstance(out["aux"][1], list)
    with pytest.raises(tvk.Error, match="not a torch.export program"):
        tvk.export.load(tmp_path / "opt.pt")


def test_code_and_graph_as_torch_gives_them():
    """``.code`` is forward's TorchScript source, as torch prints it for the same module; ``.graph``
    the frozen graph once a call made one (an eval-mode module's: training mode runs interpreted)."""
    scripted = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval())
    m = tvk.jit.load_torch(scripted)
    assert m.code.strip().startswith("def forward(self") and "return" in m.code
    assert m.code.split("\n")[0].split("(")[0] == scripted.code.strip().split("\n")[0].split("(")[0]
    assert m.graph is None
    m(torch.rand(2, 4))
    assert "aten::linear" in m.graph and "aten::relu" in m.graph
    program = tvk.export.load(os.path.join(EXPORTS, "mlp_ln_gelu.pt2"))
    assert "ops.aten.layer_norm(" in program.code and "ops.aten.gelu(" in program.code


@needs_vulkan
def test_device_memory_limit_is_a_load_option_and_a_module_setting(tmp_path):
    """Vulkan tensors count against ``max_device_memory``: 4 MB of weights do not fit in 1 MiB."""
    path = tmp_path / "wide.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(1024, 1024).eval()), str(path))
    with pytest.raises(tvk.OutOfMemoryError, match="device memory"):
        tvk.jit.load(path, device="vulkan", max_device_memory=1 << 20)
    m = tvk.jit.load(path, device="vulkan", max_device_memory=64 << 20)
    assert tuple(m(torch.rand(2, 1024)).shape) == (2, 1024)
    m.set_limits(max_device_memory=64 << 20)
    assert tuple(m(torch.rand(3, 1024)).shape) == (3, 1024)
