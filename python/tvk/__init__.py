"""tvk: PyTorch models on Vulkan GPUs, without libtorch at run time.

The seed's Python workflow with tvk in place of torch's missing Vulkan pieces::

    import tvk
    tvk.is_vulkan_available()
    m = tvk.jit.load("mobilenet_v2.pt")
    opt = tvk.utils.mobile_optimizer.optimize_for_mobile(m, backend="vulkan")
    opt.save("mobilenet2-vulkan.pt")
    y = tvk.jit.load("mobilenet2-vulkan.pt")(x)   # x: numpy array, torch tensor or tvk.Tensor

Tensors move with ``t.vulkan()``, ``t.cpu()`` and ``t.to("vulkan")``; ``tvk.relu(t)`` and the
other ops of ``tvk ops`` are functions here. Errors are ``tvk.Error`` (``tvk.UnsupportedError``
for an op or input tvk does not support, ``tvk.OutOfMemoryError``, ``tvk.LimitError`` for a run of
model code past its time, step or stack limit).
"""
import random as _random

import numpy as _np

from . import _tvk
from ._tvk import (  # noqa: F401
    Error,
    LimitError,
    OutOfMemoryError,
    Tensor,
    UnsupportedError,
    VulkanError,
    cpu_fallback_enabled,
    devices,
    is_vulkan_available,
    set_cpu_fallback,
    set_vulkan_precision,
    vulkan_precision,
)

__version__ = _tvk.__version__

_DTYPES = {None: None, "float32": _np.float32, "float": _np.float32, "int64": _np.int64, "long": _np.int64,
           "bool": _np.bool_}


def from_numpy(array):
    """A CPU tensor holding a copy of ``array`` (float64 becomes float32, other ints int64)."""
    return _tvk.from_numpy(_np.asarray(array))


def tensor(data, dtype=None, device="cpu"):
    """A tensor from nested lists, numbers or an array, like ``torch.tensor``."""
    if dtype not in _DTYPES:
        raise UnsupportedError("tensor: dtype %r is not supported (float32, int64, bool)" % (dtype,))
    array = _np.asarray(data, dtype=_DTYPES[dtype])
    if dtype is None and array.dtype == _np.float64:
        array = array.astype(_np.float32)
    return _tvk.from_numpy(array).to(device)


# The default generator: each rand/randn call without a seed draws the next seed from it, so
# calls differ and manual_seed makes a sequence of them reproducible (torch's default seed).
_generator = _random.Random(67280421310721)


def manual_seed(seed):
    """Seeds the generator rand and randn draw from when called without ``seed``, as
    ``torch.manual_seed`` does."""
    _generator.seed(int(seed))


def _shape_of(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape


def rand(*shape, seed=None, device="cpu"):
    """Uniform [0, 1) float32 values; ``seed`` makes this call reproducible, else the next seed
    comes from the generator ``manual_seed`` seeds."""
    seed = _generator.getrandbits(64) if seed is None else seed
    return _tvk.rand(list(_shape_of(shape)), seed).to(device)


def randn(*shape, seed=None, device="cpu"):
    """Standard normal float32 values; ``seed`` as for ``rand``."""
    seed = _generator.getrandbits(64) if seed is None else seed
    return _tvk.randn(list(_shape_of(shape)), seed).to(device)


def zeros(*shape, device="cpu"):
    return _tvk.zeros(list(_shape_of(shape))).to(device)


def ones(*shape, device="cpu"):
    return _tvk.ones(list(_shape_of(shape))).to(device)


def from_dlpack(obj):
    """A CPU tensor sharing the memory of ``obj`` (a torch tensor, numpy array or anything with
    ``__dlpack__``), without a copy."""
    capsule = obj.__dlpack__() if hasattr(obj, "__dlpack__") else obj
    return _tvk.from_dlpack_capsule(capsule)


def _tensor_repr(self):
    body = _np.array2string(self.cpu().numpy(), separator=", ", prefix="tensor(")
    extra = "" if self.device == "cpu" else ", device='%s'" % self.device
    extra += "" if self.dtype == "float32" else ", dtype=%s" % self.dtype
    return "tensor(%s%s)" % (body, extra)


Tensor.__repr__ = _tensor_repr
Tensor.__array__ = lambda self, dtype=None: _np.asarray(self.cpu().numpy(), dtype=dtype)


def __getattr__(name):
    """``tvk.relu(t)``, ``tvk.add(a, b)``...: the registered ops (``tvk ops``) as functions, which
    take tvk tensors, numpy arrays and torch tensors and return the kind they were given."""
    if not name.startswith("_") and _tvk.has_op("aten::" + name):
        return _ops.function(name)
    raise AttributeError("module 'tvk' has no attribute %r (nor an op aten::%s)" % (name, name))


from . import _ops, export, jit, utils  # noqa: E402,F401

_ops.install(Tensor)  # operators, indexing and every registry op as a method
