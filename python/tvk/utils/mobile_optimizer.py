"""``tvk.utils.mobile_optimizer``: PyTorch's ``torch.utils.mobile_optimizer`` with the Vulkan
backend that stock PyTorch can no longer run."""
import enum

from .. import _tvk
from ..jit import Module

__all__ = ["MobileOptimizerType", "optimize_for_mobile"]


class MobileOptimizerType(enum.IntEnum):
    """torch._C.MobileOptimizerType: the passes an optimization_blocklist can turn off."""

    CONV_BN_FUSION = 0
    INSERT_FOLD_PREPACK_OPS = 1
    REMOVE_DROPOUT = 2
    FUSE_ADD_RELU = 3
    HOIST_CONV_PACKED_PARAMS = 4
    CONV_1D_TO_2D = 5
    VULKAN_AUTOMATIC_GPU_TRANSFER = 6


def optimize_for_mobile(script_module, optimization_blocklist=None, preserved_methods=None, backend="vulkan",
                        cpu_fallback=False, example_inputs=None):
    """Freezes ``forward`` (and ``preserved_methods``) of a tvk module and optimizes it:
    batch-norm folding, prepacked weights, clamp fusion, dropout removal and, for Vulkan,
    automatic CPU<->GPU transfer. ``backend`` is "vulkan" or "cpu" (any case). A torch
    ScriptModule is accepted too (taken through an in-memory save). ``cpu_fallback=True``
    (Vulkan): ops without a Vulkan kernel are partitioned onto the CPU, with transfers at the
    partition's borders, instead of failing when the model runs. ``example_inputs`` (tvk, numpy
    or torch tensors; only their dtypes are read) tell ``forward``'s input dtypes, for models
    that check them (a bool padding mask for nn.MultiheadAttention); unset, inputs are taken as
    float32."""
    if not isinstance(script_module, Module):
        from ..jit import load_torch

        script_module = load_torch(script_module)
    blocklist = [int(MobileOptimizerType(t)) for t in (optimization_blocklist or set())]
    dtypes = []
    for x in example_inputs or []:
        name = str(getattr(x, "dtype", ""))  # "float32", "torch.bool", "int64", ...
        dtypes.append(name.replace("torch.", "") if name else None)
    native = _tvk.optimize_for_mobile(script_module._native, blocklist, list(preserved_methods or []), str(backend),
                                      bool(cpu_fallback), dtypes)
    return Module(native)
