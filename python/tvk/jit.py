"""``tvk.jit``: load TorchScript files (``torch.jit.save``) and run them on the CPU or Vulkan."""
import collections
import io
import os
import tempfile

import numpy as _np

from . import _tvk

__all__ = ["load", "load_torch", "Module"]

_named_tuple_types = {}


def _to_python(value):
    # NamedTuples come from _tvk as ("__named_tuple__", type name, field names, values).
    if isinstance(value, tuple) and len(value) == 4 and value[0] == "__named_tuple__":
        _, type_name, fields, values = value
        key = (type_name, tuple(fields))
        if key not in _named_tuple_types:
            _named_tuple_types[key] = collections.namedtuple(type_name.rsplit(".", 1)[-1], fields)
        return _named_tuple_types[key](*[_to_python(v) for v in values])
    if isinstance(value, list):
        return [_to_python(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_python(v) for v in value)
    return value


def _is_torch_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "__dlpack__") and hasattr(x, "detach")


_MAX_NESTING = 64  # as the native conversions (and Java's) allow


def _convert_inputs(args, depth=0):
    """tvk tensors pass as they are; numpy arrays and torch tensors become tvk tensors. Returns
    the converted arguments and the kind of tensor the caller gave ("tvk", "numpy" or "torch")."""
    if depth > _MAX_NESTING:
        raise _tvk.Error("a value nested more than %d deep" % _MAX_NESTING)
    kind = None
    out = []
    for a in args:
        if isinstance(a, _tvk.Tensor):
            kind = kind or "tvk"
            out.append(a)
        elif isinstance(a, _np.ndarray):
            kind = kind or "numpy"
            out.append(_tvk.from_numpy(a))
        elif _is_torch_tensor(a):
            kind = kind or "torch"
            t = a.detach()
            if t.device.type != "cpu":
                t = t.cpu()
            # As numpy arrays are taken: float64 (and float16) becomes float32, other ints int64.
            if t.is_floating_point() and str(t.dtype) != "torch.float32":
                t = t.float()
            elif str(t.dtype) in ("torch.int8", "torch.uint8", "torch.int16", "torch.int32"):
                t = t.long()
            if str(t.dtype) == "torch.bool":  # DLPack has no bool in torch 1.x: through numpy
                out.append(_tvk.from_numpy(t.contiguous().numpy()))
            else:
                out.append(_tvk.from_dlpack_capsule(t.contiguous().__dlpack__()))
        elif isinstance(a, (list, tuple)):
            inner, inner_kind = _convert_inputs(a, depth + 1)
            kind = kind or inner_kind
            out.append(list(inner) if isinstance(a, list) else tuple(inner))
        else:
            out.append(a)
    return out, kind


def _convert_outputs(value, kind):
    if isinstance(value, _tvk.Tensor):
        if kind == "numpy":
            return value.cpu().numpy()
        if kind == "torch":
            import torch

            if value.dtype == "bool":  # DLPack has no bool in torch 1.x: through numpy
                return torch.from_numpy(value.cpu().numpy())
            return torch.from_dlpack(value.cpu())
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_convert_outputs(v, kind) for v in value])
    if isinstance(value, list):
        return [_convert_outputs(v, kind) for v in value]
    if isinstance(value, tuple):
        return tuple(_convert_outputs(v, kind) for v in value)
    return value


class Module:
    """A loaded TorchScript module. ``module(x)`` runs ``forward``; it takes tvk tensors, numpy
    arrays or torch tensors and returns the kind it was given. Inference runs without the GIL."""

    def __init__(self, native):
        self._native = native

    def __call__(self, *args, timeout=None):
        return self.forward(*args, timeout=timeout)

    def forward(self, *args, timeout=None):
        return self.run_method("forward", *args, timeout=timeout)

    def run_method(self, method, *args, timeout=None):
        """Runs ``method``; ``timeout`` (seconds) limits this call, else the module's limits do.
        A run past a limit raises ``tvk.LimitError`` (time, steps, stack) or
        ``tvk.OutOfMemoryError`` (host memory)."""
        converted, kind = _convert_inputs(args)
        return _convert_outputs(_to_python(self._native.run_method(method, *converted, timeout=timeout)), kind)

    def set_limits(self, timeout=None, max_memory=None, max_steps=None, max_device_memory=None):
        """The limits every later run of this module's code runs under: ``timeout`` seconds per
        run, ``max_memory`` host bytes its values and CPU tensors may hold, ``max_device_memory``
        bytes its Vulkan tensors may hold (default: the device's memory heap), ``max_steps``
        statements and loop iterations per run (None: the default; docs/reliability.md)."""
        self._native.set_limits(timeout=timeout, max_memory=max_memory, max_steps=max_steps,
                                max_device_memory=max_device_memory)

    def __getattr__(self, name):
        if not name.startswith("_") and self._native.has_method(name):
            return lambda *args: self.run_method(name, *args)
        raise AttributeError("%s has no method or attribute %r" % (self._native.type_name, name))

    def save(self, path):
        """Writes a module made by optimize_for_mobile as a TorchScript archive."""
        self._native.save(os.fspath(path))

    @property
    def device(self):
        return self._native.device

    @property
    def optimized_for_vulkan(self):
        return self._native.optimized_for_vulkan

    @property
    def code(self):
        """forward's TorchScript source, as torch's ``ScriptModule.code``: as the archive wrote it
        (a .pt2's as tvk translated its graph), or for an optimized module as ``save`` writes it."""
        return self._native.code("forward")

    @property
    def graph(self):
        """forward's frozen graph, printed (a str): an optimized module's, or a loaded one's after
        its first call froze it; None before that, or when forward runs interpreted."""
        return self._native.graph("forward")

    @property
    def is_exported_program(self):
        """True for a torch.export program (.pt2) that ``load`` read."""
        return self._native.is_exported_program

    @property
    def example_inputs(self):
        """The inputs for forward the file holds (a .pt2's sample inputs), as a tuple; empty
        when it holds none. ``module(*module.example_inputs)`` runs it on them."""
        return tuple(_convert_outputs(_to_python(v), "tvk") for v in self._native.example_inputs)

    def named_parameters(self):
        return self._native.named_parameters()

    def state_dict(self):
        """{name: tensor} of the parameters, as ``named_parameters`` gives them (tvk tensors; a
        module optimized for Vulkan holds packed weights instead, so has none)."""
        return collections.OrderedDict(self._native.named_parameters())

    # tvk runs inference only: a loaded module is always in eval mode, as torch's is after .eval().
    training = False

    def eval(self):
        """Returns the module: it is always in eval mode (tvk runs inference only)."""
        return self

    def train(self, mode=True):
        """``train(False)`` is ``eval()``; training mode raises: tvk runs inference only."""
        if mode:
            raise _tvk.UnsupportedError("tvk runs models for inference only: train() is not supported "
                                        "(train in PyTorch, then torch.jit.save the model)")
        return self

    def set_tuning(self, mode):
        """Kernel tuning for this module's Vulkan layers: "on" times every kernel method that can
        run each layer the device's tuning table lacks, while the first run records its plan, and
        keeps the fastest correct one in the table (the cache directory); "cached" uses the
        table's choices and times nothing; "off" keeps the built-in rules. Set it before the
        first run."""
        self._native.set_tuning(str(mode))

    @property
    def tuning(self):
        """The mode set_tuning gave ("off", "cached", "on"), or None: ``TVK_TUNE``'s."""
        return self._native.tuning

    @property
    def extra_files(self):
        """{name: bytes}: the archive's extra files (torch.jit.save's _extra_files, a lite file's
        mobile_info.json), which save() writes back."""
        return self._native.extra_files

    def set_extra_file(self, name, contents):
        """Adds or replaces an extra file (bytes or str) that save() writes."""
        self._native.set_extra_file(name, contents.encode() if isinstance(contents, str) else bytes(contents))

    def __repr__(self):
        where = "optimized for vulkan" if self._native.optimized_for_vulkan else "on %s" % self._native.device
        return "<tvk.jit.Module %s %s>" % (self._native.type_name, where)


def _device_of(map_location, device):
    """The device ``map_location`` (as torch.jit.load takes it: a string or torch.device) names,
    checked against ``device``."""
    if map_location is None:
        return device
    if callable(map_location) or isinstance(map_location, dict):
        raise _tvk.UnsupportedError("jit.load: map_location as a %s is not supported; give 'cpu' or 'vulkan'"
                                    % type(map_location).__name__)
    name = str(map_location)  # a torch.device prints as its name
    if name.split(":")[0] not in ("cpu", "vulkan"):
        raise _tvk.UnsupportedError("jit.load: map_location=%r: tvk runs on 'cpu' or 'vulkan'" % name)
    name = name.split(":")[0]
    if device not in ("cpu", name):
        raise _tvk.Error("jit.load: map_location=%r and device=%r disagree" % (name, device))
    return name


def load(f, map_location=None, _extra_files=None, device="cpu", tuning=None, timeout=None, max_memory=None,
         max_steps=None, max_device_memory=None):
    """Loads a ``torch.jit.save`` archive (or a ``torch.export.save`` program, .pt2) from a path,
    bytes or a binary file object, as ``torch.jit.load`` does: ``map_location`` ("cpu", "vulkan" or a torch.device) or ``device``
    says where the parameters go, and ``_extra_files`` (a dict of names) is filled with the
    archive's extra files. With "vulkan", parameters move to the GPU once, here. ``tuning`` ("off", "cached",
    "on"; None: ``TVK_TUNE``'s, else "cached") is the module's kernel tuning: see
    ``Module.set_tuning``. ``timeout``, ``max_memory``, ``max_device_memory`` and ``max_steps`` limit loading (a file's
    code runs then) and every later run: see ``Module.set_limits``."""
    limits = dict(timeout=timeout, max_memory=max_memory, max_steps=max_steps, max_device_memory=max_device_memory)
    device = _device_of(map_location, str(device))

    def finish(module):
        if tuning is not None:
            module.set_tuning(tuning)
        if _extra_files is not None:
            extra = module.extra_files
            for name in list(_extra_files):
                _extra_files[name] = extra.get(name, b"")
        return module

    if isinstance(f, (str, os.PathLike)):
        return finish(Module(_tvk.load(os.fspath(f), device, **limits)))
    data = bytes(f) if isinstance(f, (bytes, bytearray, memoryview)) else f.read()
    # The loader reads archives from files: bytes go through a private temporary one.
    fd, path = tempfile.mkstemp(suffix=".pt", prefix="tvk-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return finish(Module(_tvk.load(path, device, **limits)))
    finally:
        os.unlink(path)


def load_torch(script_module, device="cpu"):
    """A torch ScriptModule (torch.jit.script or trace), taken through an in-memory save."""
    import torch

    buffer = io.BytesIO()
    torch.jit.save(script_module, buffer)
    return load(buffer.getvalue(), device=device)
