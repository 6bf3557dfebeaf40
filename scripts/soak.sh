#!/usr/bin/env bash
# Soak: N inferences (default 10,000) of optimized mobilenet_v2 on the default Vulkan device,
# printing host RSS and device memory every 1,000 (tvk bench --memory-every). Fails unless both
# stay flat: device memory in use unchanged and RSS within 5% (plus 4 MiB) of the first report
# after warm-up. Usage: scripts/soak.sh [N]   (lavapipe: about 90 ms per inference)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
every=$(( n >= 10000 ? 1000 : (n >= 10 ? n / 10 : 1) ))
work=build/soak
mkdir -p "$work"
[[ -x build/tvk ]] || { echo "soak.sh: build tvk first (cmake --build build)" >&2; exit 1; }
if [[ ! -f "$work/mobilenet2-vulkan.pt" ]]; then
  /usr/bin/python3 -c "import torch, torchvision; torch.manual_seed(0); torch.jit.save(torch.jit.script(torchvision.models.mobilenet_v2().eval()), '$work/mobilenet2.pt')"
  ./build/tvk optimize "$work/mobilenet2.pt" -o "$work/mobilenet2-vulkan.pt" >/dev/null
fi
./build/tvk bench "$work/mobilenet2-vulkan.pt" --iters "$n" --warmup 20 --memory-every "$every" | tee "$work/soak.log"
/usr/bin/python3 - "$work/soak.log" <<'PY'
import re, sys
rows = [tuple(float(v) for v in m.groups()) for m in
        (re.search(r"host RSS ([\d.]+) MiB, device ([\d.]+) MiB in use, ([\d.]+) MiB reserved", l) for l in open(sys.argv[1]))
        if m]
if len(rows) < 2:
    sys.exit("soak: fewer than two memory reports")
(rss0, dev0, res0), (rss1, dev1, res1) = rows[0], rows[-1]
flat = dev1 == dev0 and res1 == res0 and rss1 <= rss0 * 1.05 + 4
print(f"soak: host RSS {rss0:.1f} -> {rss1:.1f} MiB, device in use {dev0:.1f} -> {dev1:.1f} MiB, "
      f"reserved {res0:.1f} -> {res1:.1f} MiB over {len(rows)} reports: {'flat' if flat else 'GROWING'}")
sys.exit(0 if flat else 1)
PY
