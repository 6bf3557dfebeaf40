"""torch.export programs: ``tvk.export.load("model.pt2")`` reads what ``torch.export.save``
writes (the PT2 archive, and the layout torch 2.1-2.5 wrote) and returns a ``tvk.jit.Module``
that runs it on the CPU or on Vulkan, as ``torch.export.load(path).module()`` would::

    import tvk
    program = tvk.export.load("model.pt2", device="vulkan")
    y = program(*program.example_inputs)      # the archive's sample inputs, when it has them
    opt = tvk.utils.mobile_optimizer.optimize_for_mobile(tvk.export.load("model.pt2"), backend="vulkan")
    opt.save("model-vulkan.pt")                # a Vulkan-optimized TorchScript archive

forward checks its inputs as torch's guards do: each tensor's rank and dtype, the sizes the
program fixed, and dynamic sizes within the ranges it was exported for.
"""
from . import jit as _jit


def load(f, device="cpu", tuning=None, timeout=None, max_memory=None, max_steps=None, max_device_memory=None):
    """Loads a .pt2 from a path, bytes or a binary file object (see ``tvk.jit.load``, which reads
    these files too); raises ``tvk.Error`` when it is not a torch.export program."""
    module = _jit.load(f, device=device, tuning=tuning, timeout=timeout, max_memory=max_memory, max_steps=max_steps,
                       max_device_memory=max_device_memory)
    if not module.is_exported_program:
        raise _jit._tvk.Error("tvk.export.load: %s is a TorchScript archive, not a torch.export program: "
                              "load it with tvk.jit.load" % (f if isinstance(f, str) else "the file"))
    return module
