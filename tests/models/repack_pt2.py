#!/usr/bin/env python3
"""Rewrites a PT2 archive's weights in the layout torch 2.6-2.7 wrote: one torch.save'd state dict
per program (data/weights/<model>.pt, parameters as nn.Parameter) and one for its constants
(data/constants/<model>.pt), instead of a raw file per tensor with a JSON config. torch.save is
the local torch's (1.13: the same zip format). Usage: repack_pt2.py IN.pt2 OUT.pt2"""
import io
import json
import os
import sys
import zipfile

import numpy as np
import torch

DTYPES = {7: np.float32, 5: np.int64, 12: np.bool_}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    top = os.path.splitext(os.path.basename(dst))[0]
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        names = zin.namelist()
        root = names[0].split("/", 1)[0] + "/"
        config = json.loads(zin.read(root + "data/weights/model_weights_config.json"))["config"]
        state = {}
        for fqn, entry in config.items():
            meta = entry["tensor_meta"]
            sizes = [s["as_int"] for s in meta["sizes"]]
            data = np.frombuffer(zin.read(root + "data/weights/" + entry["path_name"]), DTYPES[meta["dtype"]])
            t = torch.from_numpy(data.copy()).reshape(sizes)
            state[fqn] = torch.nn.Parameter(t, requires_grad=False) if entry["is_param"] else t
        for name in names:
            record = name[len(root):]
            if record.startswith("data/weights/") or record.startswith("data/constants/"):
                continue
            zout.writestr(top + "/" + record, zin.read(name))
        for folder, value in (("weights", state), ("constants", {})):
            buf = io.BytesIO()
            torch.save(value, buf)
            zout.writestr(top + "/data/%s/model.pt" % folder, buf.getvalue())


if __name__ == "__main__":
    main()
