"""Rewrites an archive torch 1.13 wrote into the forms PyTorch 1.3-1.5 wrote (issue 11: no torch
that old installs here, so the tests build such files from what PyTorch's sources of that time
say they wrote):

- the `version` record says 1 (1.3) or 2 (1.4, 1.5), the first record of the archive;
- every code file of a version-1 archive starts with `op_version_set = 1` (the printer's
  LEGACY_printOpVersion, dropped in version 2);
- class bodies have no `__buffers__` line (buffers were plain attributes until 1.6);
- floats are printed with 17 significant digits (`0.10000000000000001`), integral ones as `N.`;
- `unchecked_cast(Tensor, x)` of an Optional is `ops.prim.unchecked_unwrap_optional(x)` in version
  1 and `torch._unwrap_optional(x)` in version 2 (both forms appear in code of that time);
- data.pkl and constants.pkl: protocol 2 with 6-element storage ids (the sixth, view metadata,
  None), no `restore_type_tag` (type tags on containers came with version 3), typed lists as
  `torch.jit._pickle.build_*list`, objects as GLOBAL, EMPTY_TUPLE, NEWOBJ, state, BUILD, and an
  empty dict as EMPTY_DICT MARK SETITEMS.

torch 1.13 itself still reads such files (and applies its upgraders to their versioned ops:
integer `div` truncates, `full` with an integer fill gives floats), which checks the rewrite.
"""

import pickle
import re
import struct
import zipfile


class _Call:
    """A call of a global other than a script class: written back as GLOBAL, args, REDUCE."""

    def __init__(self, module, name, args):
        self.module, self.name, self.args = module, name, args


class _Global:
    """A global named in the pickle: called (REDUCE) it is a _Call; otherwise written as is
    (storage types in persistent ids)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        return _Call(self.module, self.name, args)


class _TypedList:
    def __init__(self, builder, items):
        self.builder, self.items = builder, items


class _Storage:
    def __init__(self, pid):
        self.pid = tuple(pid)


def _script_class(module, name):
    def setstate(self, state):
        self.state = state

    return type(name, (), {"module": module, "name": name, "__setstate__": setstate})


class _Reader(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "torch.jit._pickle" and name == "restore_type_tag":
            return lambda value, tag: value
        if module == "torch.jit._pickle" and name.startswith("build_") and name.endswith("list"):
            return lambda items: _TypedList(name, items)
        if module.startswith("__torch__"):
            return _script_class(module, name)
        return _Global(module, name)

    def persistent_load(self, pid):
        return _Storage(pid)


def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _marked(values, closer, out):
    """MARK, the values, then the opcode that gathers them (TUPLE, APPENDS, SETITEMS)."""
    out.append(b"(")
    for v in values:
        _write(v, out)
    out.append(closer)


def _write(value, out):
    w = out.append
    if value is None:
        w(b"N")
    elif value is True:
        w(b"\x88")
    elif value is False:
        w(b"\x89")
    elif isinstance(value, int):
        if -(2**31) <= value < 2**31:
            w(b"J" + struct.pack("<i", value))
        else:
            raw = value.to_bytes(9, "little", signed=True).rstrip(b"\x00" if value >= 0 else b"\xff")
            raw = value.to_bytes(len(raw) + 1, "little", signed=True)
            w(b"\x8a" + bytes([len(raw)]) + raw)
    elif isinstance(value, float):
        w(b"G" + struct.pack(">d", value))
    elif isinstance(value, str):
        data = value.encode("utf-8")
        w(b"X" + struct.pack("<I", len(data)) + data)
    elif isinstance(value, tuple):
        if value:
            _marked(value, b"t", out)
        else:
            w(b")")
    elif isinstance(value, list):
        w(b"]")
        if value:
            _marked(value, b"e", out)
    elif isinstance(value, dict):
        w(b"}")
        _marked([x for item in value.items() for x in item], b"u", out)
    elif isinstance(value, _TypedList):
        w(_global("torch.jit._pickle", value.builder))
        _write((value.items,), out)
        w(b"R")
    elif isinstance(value, _Call):
        w(_global(value.module, value.name))
        _write(tuple(value.args), out)
        w(b"R")
    elif isinstance(value, _Global):
        w(_global(value.module, value.name))
    elif isinstance(value, _Storage):
        pid = value.pid if len(value.pid) == 6 else value.pid + (None,)
        _write(pid, out)
        w(b"Q")
    elif hasattr(type(value), "module"):  # a script object: GLOBAL, EMPTY_TUPLE, NEWOBJ, BUILD
        w(_global(type(value).module, type(value).name) + b")\x81")
        if hasattr(value, "state"):
            _write(value.state, out)
            w(b"b")
    elif isinstance(value, type) and hasattr(value, "module"):  # a script class itself
        w(_global(value.module, value.name))
    else:
        raise TypeError("cannot write %r" % (value,))


def repickle(data):
    """data.pkl / constants.pkl as PyTorch 1.3-1.5 pickled them."""
    import io

    value = _Reader(io.BytesIO(data)).load()
    out = [b"\x80\x02"]
    _write(value, out)
    out.append(b".")
    return b"".join(out)


_FLOAT = re.compile(r"(?<![\w.\"'])(\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+)(?![\w.])")


def _old_float(match):
    text = "%.17g" % float(match.group(1))
    if not any(c in text for c in ".en"):
        text += "."
    return text


def rewrite_code(text, version):
    lines = [line for line in text.split("\n") if not line.strip().startswith("__buffers__ = ")]
    text = "\n".join(lines)
    text = _FLOAT.sub(_old_float, text)
    unwrap = "ops.prim.unchecked_unwrap_optional" if version == 1 else "torch._unwrap_optional"
    text = re.sub(r"unchecked_cast\(Tensor, ([\w.]+)\)", unwrap + r"(\1)", text)
    if version == 1:
        text = "op_version_set = 1\n" + text
    return text


def write_legacy(source, path, version):
    """Writes the torch 1.13 archive `source` to `path` in the forms of format `version` (1 or 2)."""
    assert version in (1, 2)
    with zipfile.ZipFile(source) as zin:
        names = zin.namelist()
        top = names[0].split("/")[0]
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zout:
            zout.writestr(top + "/version", "%d\n" % version)
            for name in names:
                rel = name[len(top) + 1:]
                if rel in ("version", ".data/version", ".data/serialization_id") or rel.startswith("bytecode"):
                    continue
                data = zin.read(name)
                if rel in ("data.pkl", "constants.pkl"):
                    data = repickle(data)
                elif rel.startswith("code/") and rel.endswith(".py"):
                    data = rewrite_code(data.decode("utf-8"), version).encode("utf-8")
                # Code records above 200 bytes were deflated, as torch.jit.save still does.
                compress = zipfile.ZIP_DEFLATED if rel.startswith("code/") and len(data) > 200 else zipfile.ZIP_STORED
                zout.writestr(zipfile.ZipInfo(name), data, compress_type=compress)
