// Real TorchScript archives for the serialization tests, produced by Debian's PyTorch
// (/usr/bin/python3, not the python3 on PATH) with numpy copies of the values; cached in TempDir.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include <unistd.h>

#include "support/test_support.h"

namespace tvk::testing_support {

inline const char* kTorchPython = "/usr/bin/python3";

// Runs `script` with /usr/bin/python3 and `args`; returns the exit status (output goes to the log).
inline int run_python(const std::string& script, const std::string& name, const std::string& args) {
  // Per-process file name: CTest may run several test processes at once.
  const std::string path = ::testing::TempDir() + "tvk_" + name + "_" + std::to_string(::getpid()) + ".py";
  {
    std::ofstream f(path);
    f << script;
  }
  const std::string cmd = std::string(kTorchPython) + " " + path + " " + args + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::remove(path.c_str());
  return rc;
}

// The script that writes the fixtures; see torch_fixture_dir().
inline const char* kFixtureScript = R"PY(
import torch, numpy as np, sys, os, zipfile
from typing import List, Dict, Tuple, Optional
out = sys.argv[1]
torch.manual_seed(0)
conv = torch.jit.script(torch.nn.Conv2d(3, 4, 3))
torch.jit.save(conv, os.path.join(out, 'conv.pt'))
np.save(os.path.join(out, 'conv_weight.npy'), conv.weight.detach().numpy())
np.save(os.path.join(out, 'conv_bias.npy'), conv.bias.detach().numpy())

class Attrs(torch.nn.Module):
    ints: List[int]
    floats: List[float]
    flags: List[bool]
    names: List[str]
    table: Dict[str, int]
    pair: Tuple[int, str]
    maybe: Optional[int]
    def __init__(self):
        super().__init__()
        base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
        self.base = base
        self.window = base[1:3, 2:5]
        self.transposed = base.t()
        self.ints = [1, 2, 300, 70000, -5, 2**40]
        self.floats = [0.5, -1.25]
        self.flags = [True, False]
        self.names = ['a', 'b']
        self.table = {'x': 1, 'y': 2}
        self.pair = (3, 'z')
        self.scale = 0.1
        self.maybe = None
        self.idx = torch.tensor([1, 2, 3], dtype=torch.long)
        self.mask = torch.tensor([True, False, True])
        self.dev = torch.device('cpu')
    def forward(self, x):
        return x + self.base.sum()
a = torch.jit.script(Attrs())
torch.jit.save(a, os.path.join(out, 'attrs.pt'))
np.save(os.path.join(out, 'attrs_window.npy'), a.window.numpy())
np.save(os.path.join(out, 'attrs_transposed.npy'), np.ascontiguousarray(a.transposed.numpy()))
np.save(os.path.join(out, 'fortran.npy'), np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
seq = torch.jit.script(torch.nn.Sequential(*[torch.nn.Linear(2, 2) for _ in range(40)]))
torch.jit.save(seq, os.path.join(out, 'seq.pt'))
np.save(os.path.join(out, 'seq_39_weight.npy'), seq[39].weight.detach().numpy())
conv._save_for_lite_interpreter(os.path.join(out, 'conv.ptl'))
for name in ['conv.pt', 'attrs.pt', 'seq.pt', 'conv.ptl']:
    with zipfile.ZipFile(os.path.join(out, name)) as z:
        with open(os.path.join(out, name + '.records.txt'), 'w') as f:
            for i in z.infolist():
                f.write('%s %d %d\n' % (i.filename, i.file_size, i.compress_type))
)PY";

// Named after a hash of the script, so an edited script never sees stale files.
inline std::string fixture_cache_dir() {
  return ::testing::TempDir() + "tvk_torch_fixtures_" + std::to_string(std::hash<std::string>()(kFixtureScript));
}

inline bool torch_python_available() {
  // A complete fixture folder proves torch worked; it saves a ~2 s `import torch` per process.
  static const bool ok = std::ifstream(fixture_cache_dir() + "/complete").good() ||
                         run_python("import torch, numpy\n", "probe", "") == 0;
  return ok;
}

// Writes conv.pt, attrs.pt, seq.pt, conv.ptl, their `<file>.records.txt` (name, size, method as
// Python's zipfile sees them) and .npy references into one folder; returns it ("" on failure).
// CTest runs every test in its own process, so the folder is kept between processes: it is named
// after a hash of the script and built under a private name, then renamed into place (atomic,
// and safe when tests run in parallel).
inline const std::string& torch_fixture_dir() {
  static const std::string dir = [] {

    const std::string final_dir = fixture_cache_dir();
    std::ifstream done(final_dir + "/complete");
    if (done.good()) return final_dir + "/";
    const std::string work = final_dir + ".tmp" + std::to_string(::getpid());
    if (std::system(("rm -rf " + work + " && mkdir -p " + work).c_str()) != 0) return std::string();
    if (run_python(kFixtureScript, "make_fixtures", work) != 0) return std::string();
    std::ofstream(work + "/complete") << "ok\n";
    if (std::rename(work.c_str(), final_dir.c_str()) != 0) {
      // Another process won the race (or a stale folder is in the way): use theirs if complete.
      if (std::system(("rm -rf " + work).c_str()) != 0) return std::string();
      if (!std::ifstream(final_dir + "/complete").good()) return std::string();
    }
    return final_dir + "/";
  }();
  return dir;
}

}  // namespace tvk::testing_support

// Skips when /usr/bin/python3 has no torch, or fails under TVK_REQUIRE_VULKAN=1 (scripts/test.sh),
// where the real-file tests must run.
#define TVK_NEED_TORCH_FIXTURES()                                                                  \
  do {                                                                                             \
    if (!::tvk::testing_support::torch_python_available()) {                                       \
      if (::tvk::testing_support::vulkan_required())                                               \
        FAIL() << "TVK_REQUIRE_VULKAN is set but /usr/bin/python3 cannot import torch and numpy"; \
      GTEST_SKIP() << "/usr/bin/python3 has no torch";                                             \
    }                                                                                              \
    ASSERT_FALSE(::tvk::testing_support::torch_fixture_dir().empty())                             \
        << "generating the TorchScript fixtures with /usr/bin/python3 failed";                    \
  } while (0)
