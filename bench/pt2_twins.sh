#!/usr/bin/env bash
# A torch.export program against its TorchScript twin (issue 51's speed target), on a machine
# whose torch can export (2.x): tests/models/make_exports.py --big writes mobilenet_v2 as a .pt2
# and as torch.jit.script's archive with the same weights; both are benched as loaded and as
# optimized, fp32 and fp16, alternating, ROUNDS times. Also writes the torch 2.x fixtures not yet
# kept (OUT/export) for review.
# usage: bench/pt2_twins.sh TVK OUT [ROUNDS]     (TVK: the tvk binary; its libtvk.so on the loader path)
set -euo pipefail
tvk=$(realpath "$1")
out=$(realpath -m "$2")
rounds=${3:-2}
cd "$(dirname "$0")/.."
mkdir -p "$out/big"
python3 -c "import torch, torchvision; print('torch', torch.__version__, 'torchvision', torchvision.__version__)"
python3 tests/models/make_exports.py "$out/export" \
  --only dynamic_seq,sdpa_variants,cnn_bn_core,mlp_core,attention_core 2>&1 | tail -8
python3 tests/models/make_exports.py "$out/big" --only mobilenet_v2 --big 2>&1 | tail -3
for n in dynamic_seq sdpa_variants cnn_bn_core mlp_core attention_core; do
  echo "== tvk check $n"
  "$tvk" check "$out/export/$n.pt2" 2>&1 | tail -3 || true
done
"$tvk" optimize "$out/big/mobilenet_v2.pt2" -o "$out/big/pt2_optimized.pt" | head -1
"$tvk" optimize "$out/big/mobilenet_v2_script.pt" -o "$out/big/script_optimized.pt" | head -1
for round in $(seq "$rounds"); do
  for m in mobilenet_v2.pt2 mobilenet_v2_script.pt pt2_optimized.pt script_optimized.pt; do
    for p in fp32 fp16; do
      printf '%s %s %s ' "$round" "$m" "$p"
      "$tvk" bench "$out/big/$m" --input-shape 1,3,224,224 --iters 300 --warmup 20 --precision "$p" --json | tail -1
    done
  done
done
