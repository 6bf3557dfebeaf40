"""The op registry as Python: ``tvk.<op>`` functions and ``Tensor`` methods and operators.

Everything here calls ``_tvk.call_op``, which chooses the overload by the arguments as the
TorchScript interpreter does, so an op added to the registry reaches Python with no code here.
Functions take tvk tensors, numpy arrays and torch tensors alike and return the kind they were
given (torch in, torch out), as modules do.
"""
import numpy as _np

from . import _tvk
from .jit import _convert_inputs, _convert_outputs, _to_python

# TorchScript's ScalarType numbers for the dtypes tvk holds (c10/core/ScalarType.h).
_SCALAR_TYPES = {"float32": 6, "float": 6, "int64": 4, "long": 4, "bool": 11}


def _scalar_type(dtype):
    name = str(dtype).replace("torch.", "")
    if name not in _SCALAR_TYPES:
        try:
            name = _np.dtype(dtype).name  # np.float32, "int64", bool...
        except TypeError:
            pass
    if name not in _SCALAR_TYPES:
        raise _tvk.UnsupportedError("dtype %s is not supported (float32, int64, bool)" % (dtype,))
    return _SCALAR_TYPES[name]


def _doc(name):
    """The op's docstring: each overload's schema and the devices with a kernel for it."""
    lines = ["aten::%s, chosen by the arguments as TorchScript chooses it:" % name, ""]
    for schema, cpu, vulkan in _tvk.op_overloads("aten::" + name):
        devices = [d for d, has in (("CPU", cpu), ("Vulkan", vulkan)) if has]
        lines.append("    %s" % schema)
        lines.append("        kernels: %s" % (", ".join(devices) or "none"))
    lines += ["", "Takes tvk tensors, numpy arrays or torch tensors and returns the kind it was given."]
    return "\n".join(lines)


def call(name, *args, **kwargs):
    """aten::``name`` on ``args``: tensors of any kind in, the first tensor's kind out."""
    converted, kind = _convert_inputs(args)
    named, _ = _convert_inputs(list(kwargs.values()))
    out = _tvk.call_op("aten::" + name, *converted, **dict(zip(kwargs, named)))
    return _convert_outputs(_to_python(out), kind)


def function(name):
    """``tvk.<name>``: the op as a function with its schemas as the docstring."""

    def op(*args, **kwargs):
        return call(name, *args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = _doc(name)
    return op


# Operators: (Python name, op, whether the tensor is the second argument).
_BINARY = [("__add__", "add", False), ("__radd__", "add", False), ("__sub__", "sub", False),
           ("__rsub__", "rsub", False), ("__mul__", "mul", False), ("__rmul__", "mul", False),
           ("__truediv__", "div", False), ("__floordiv__", "floor_divide", False), ("__mod__", "remainder", False),
           ("__pow__", "pow", False), ("__rpow__", "pow", True), ("__matmul__", "matmul", False),
           ("__rmatmul__", "matmul", True), ("__eq__", "eq", False), ("__ne__", "ne", False), ("__lt__", "lt", False),
           ("__le__", "le", False), ("__gt__", "gt", False), ("__ge__", "ge", False), ("__and__", "logical_and", False),
           ("__or__", "logical_or", False), ("__xor__", "logical_xor", False)]
_UNARY = [("__neg__", "neg"), ("__abs__", "abs"), ("__invert__", "bitwise_not")]
# In-place operators change the tensor itself, as torch's do (views of it see the change).
_INPLACE = [("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"), ("__itruediv__", "div_"),
            ("__ipow__", "pow_"), ("__iand__", "logical_and_"), ("__ior__", "logical_or_"),
            ("__ixor__", "logical_xor_")]


def _binary(op, swapped):
    def method(self, other):
        return call(op, other, self) if swapped else call(op, self, other)

    return method


def _inplace(op):
    def method(self, other):
        call(op, self, other)  # changes self's storage; self stays the object `x += y` rebinds to
        return self

    return method


def _rtruediv(self, other):
    return call("mul", call("reciprocal", self), other)


def _index(self, key):
    """Indexing as torch does it for ints, slices, None, ``...`` and one index tensor."""
    key = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > self.dim():
        raise IndexError("too many indices for a tensor of dimension %d" % self.dim())
    out, dim = self, 0
    for k in key:
        if k is Ellipsis:
            dim += self.dim() - consumed
        elif k is None:
            out = call("unsqueeze", out, dim)
            dim += 1
        elif isinstance(k, bool) or not isinstance(k, (int, _np.integer, slice)):
            if dim != 0 or len(key) != 1:
                raise _tvk.UnsupportedError("tensor indices are supported alone (t[idx]), not mixed with others")
            return call("index", out, [k if isinstance(k, _tvk.Tensor) else _tvk.from_numpy(_np.asarray(k))])
        elif isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            out = call("slice", out, dim, k.start, k.stop, step)
            dim += 1
        else:
            size = out.shape[dim]
            if not -size <= int(k) < size:
                raise IndexError("index %d is out of bounds for dimension %d with size %d" % (k, dim, size))
            out = call("select", out, dim, int(k))
    return out


def _len(self):
    if self.dim() == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def _item(self):
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return self.cpu().numpy().reshape(()).item()


def _to(native_to):
    def to(self, *args, **kwargs):
        """``to("vulkan")``, ``to("cpu")``, or a dtype (``"float32"``, ``"int64"``, ``"bool"``,
        or torch's or numpy's)."""
        target = args[0] if args else kwargs.get("device", kwargs.get("dtype"))
        if str(target).split(":")[0] in ("cpu", "vulkan"):
            return native_to(self, str(target).split(":")[0])
        return call("to", self, _scalar_type(target))

    return to


def _getattr(self, name):
    """Every other registry op as a method: ``t.sum(1)``, ``t.softmax(-1)``, ``t.permute(...)``."""
    if not name.startswith("_") and _tvk.has_op("aten::" + name):
        def method(*args, **kwargs):
            if name in ("permute", "view", "reshape", "repeat", "expand") and args and isinstance(args[0], int):
                args = (list(args),)  # t.permute(0, 2, 1) as torch takes it
            return call(name, self, *args, **kwargs)

        method.__name__ = name
        method.__doc__ = _doc(name)
        return method
    raise AttributeError("'tvk.Tensor' object has no attribute %r (nor an op aten::%s)" % (name, name))


def install(tensor_class):
    """Adds the operators and methods to ``tvk.Tensor``."""
    for py_name, op, swapped in _BINARY:
        setattr(tensor_class, py_name, _binary(op, swapped))
    for py_name, op in _UNARY:
        setattr(tensor_class, py_name, lambda self, _op=op: call(_op, self))
    for py_name, op in _INPLACE:
        setattr(tensor_class, py_name, _inplace(op))
    tensor_class.__rtruediv__ = _rtruediv
    tensor_class.__hash__ = object.__hash__  # __eq__ is elementwise, as torch's
    tensor_class.__getitem__ = _index
    tensor_class.__len__ = _len
    tensor_class.__bool__ = lambda self: bool(_item(self))
    tensor_class.__float__ = lambda self: float(_item(self))
    tensor_class.__int__ = lambda self: int(_item(self))
    tensor_class.item = _item
    tensor_class.tolist = lambda self: self.cpu().numpy().tolist()
    tensor_class.to = _to(tensor_class.to)
    tensor_class.float = lambda self: call("to", self, _SCALAR_TYPES["float32"])
    tensor_class.long = lambda self: call("to", self, _SCALAR_TYPES["int64"])
    tensor_class.bool = lambda self: call("to", self, _SCALAR_TYPES["bool"])
    tensor_class.__getattr__ = _getattr
