// Model code is an untrusted program (issue 49): hostile code in forward and in __setstate__
// ends in a tvk::Error under the run's limits (time, steps, stack, host memory), never a crash,
// hang or unbounded allocation, and the process goes on working afterwards.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

#include "core/int_math.h"
#include "core/run_scope.h"
#include "jit/serialization/import.h"
#include "jit/serialization/zip_reader.h"
#include "support/program_generator.h"
#include "support/test_support.h"
#include "tvk/tvk.h"

using namespace tvk;
using namespace tvk::jit;

namespace {

// An archive whose module class __torch__.m.M has `methods` (indented two spaces) and, when
// `extra` is set, an extra/ record holding it.
std::vector<uint8_t> archive(const std::string& methods, const std::string& extra = "") {
  return testing_support::script_archive(methods, extra);
}

Module load_bytes(const std::vector<uint8_t>& bytes, const Limits& limits = {}, Device device = Device::CPU) {
  return Module(import_archive(ZipReader::from_bytes(bytes, "hostile.pt"), "hostile.pt", device, limits));
}

// forward(self) returning `body`'s value, loaded under `limits` and called.
IValue run_forward(const std::string& body, const Limits& limits = {}, Device device = Device::CPU) {
  Module m = load_bytes(archive("  def forward(self: __torch__.m.M) -> Any:\n" + body), limits, device);
  return m.forward({});
}

// A module whose whole method code is `code`: its forward() called under `limits`.
IValue run_forward_code(const std::string& code, const Limits& limits) {
  Module m = load_bytes(archive(code), limits);
  return m.forward({});
}

// The message of the tvk::Error subclass E that `f` throws; fails the test otherwise.
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong kind of error: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

// A plain module still loads and runs: the process is usable after a hostile one.
void expect_process_usable() {
  const IValue v = run_forward("    return 6 * 7\n");
  EXPECT_EQ(v.toInt(), 42);
}

constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();

}  // namespace

// int64 wraps as TorchScript's integers do, and the lowest value // -1 (a trap on x86) wraps
// too; float-to-int out of range is an error, not undefined behaviour.
TEST(Sandbox, IntegerArithmeticWrapsWithoutTrapping) {
  const IValue out = run_forward(
      "    a = -9223372036854775807 - 1\n"
      "    b = 9223372036854775807\n"
      "    return (a // -1, a % -1, -a, a * a, b + 1, b * b, abs(a), 3 ** 64, 7 // -2, -7 % 3, a - 1)\n");
  const List& r = out.toTuple();
  ASSERT_EQ(r.size(), 11u);
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(r[0].toInt(), wrapping_negate(kLowest));
  EXPECT_EQ(r[1].toInt(), 0);
  EXPECT_EQ(r[2].toInt(), wrapping_negate(kLowest));
  EXPECT_EQ(r[3].toInt(), wrapping_mul(kLowest, kLowest));
  EXPECT_EQ(r[4].toInt(), wrapping_add(max, int64_t{1}));
  EXPECT_EQ(r[5].toInt(), wrapping_mul(max, max));
  EXPECT_EQ(r[6].toInt(), wrapping_negate(kLowest));
  int64_t p = 1;
  for (int i = 0; i < 64; ++i) p = wrapping_mul(p, int64_t{3});
  EXPECT_EQ(r[7].toInt(), p);
  EXPECT_EQ(r[8].toInt(), -4);  // Python's floor division
  EXPECT_EQ(r[9].toInt(), 2);   // and modulo
  EXPECT_EQ(r[10].toInt(), max);
  for (const char* expr : {"int(1e300)", "int(float('nan'))", "int(-float('inf'))", "int('99999999999999999999')"})
    EXPECT_NE(error_of<Error>([&] { run_forward(std::string("    return ") + expr + "\n"); }).find("int"),
              std::string::npos)
        << expr;
  EXPECT_NE(error_of<Error>([&] { run_forward("    return 1 // 0\n"); }).find("by zero"), std::string::npos);
  expect_process_usable();
}

// The same arithmetic in __setstate__ runs at load time.
TEST(Sandbox, SetstateRunsUnderTheSameRules) {
  const std::string setstate = "  def __setstate__(self: __torch__.m.M, state: Dict[str, bool]) -> None:\n";
  const std::string forward = "  def forward(self: __torch__.m.M) -> int:\n    return 1\n";
  EXPECT_NO_THROW(load_bytes(archive(setstate + "    a = -9223372036854775807 - 1\n    b = a // -1\n    c = a % -1\n" +
                                     forward)));
  Limits limits;
  limits.max_steps = 100000;
  const std::string hang = error_of<LimitError>(
      [&] { load_bytes(archive(setstate + "    i = 0\n    while True:\n      i += 1\n" + forward), limits); });
  EXPECT_NE(hang.find("steps"), std::string::npos) << hang;
  EXPECT_NE(hang.find("m.py:"), std::string::npos) << hang;  // where: the code's line
  expect_process_usable();
}

// Nested loops, each bounded alone, and exponential recursion: the run's step budget stops
// them all, naming the limit and the line.
TEST(Sandbox, StepBudgetStopsNestedLoopsAndRecursion) {
  Limits limits;
  limits.max_steps = 200000;
  const std::string nested = error_of<LimitError>([&] {
    run_forward("    n = 0\n    i = 0\n    while i < 100000:\n      j = 0\n      while j < 100000:\n"
                "        j += 1\n        n += 1\n      i += 1\n    return n\n",
                limits);
  });
  EXPECT_NE(nested.find("200000 steps"), std::string::npos) << nested;
  EXPECT_NE(nested.find("hostile.pt/code/__torch__/m.py:"), std::string::npos) << nested;
  error_of<LimitError>([&] {
    run_forward("    n = 0\n    for i in range(100000):\n      for j in range(100000):\n        n += 1\n    return n\n",
                limits);
  });
  Module fib = load_bytes(archive("  def f(self: __torch__.m.M, n: int) -> int:\n    if n < 2:\n      return n\n"
                                  "    return self.f(n - 1) + self.f(n - 1)\n"
                                  "  def forward(self: __torch__.m.M, n: int) -> int:\n    return self.f(n)\n"),
                          limits);
  EXPECT_EQ(fib.forward({IValue(int64_t{10})}).toInt(), 1 << 9);  // small: runs
  error_of<LimitError>([&] { fib.forward({IValue(int64_t{60})}); });
  // The budget is per run: the next call starts afresh.
  EXPECT_EQ(fib.forward({IValue(int64_t{10})}).toInt(), 1 << 9);
  expect_process_usable();
}

// A time limit and a cancel token stop a run that the step budget would let go on.
TEST(Sandbox, TimeoutAndCancelStopARun) {
  const std::string spin = "    n = 0\n    while True:\n      n += 1\n    return n\n";
  Limits limits;
  limits.max_steps = std::numeric_limits<uint64_t>::max();
  limits.timeout_s = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const std::string timeout = error_of<LimitError>([&] { run_forward(spin, limits); });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(timeout.find("time limit of 0.3 s"), std::string::npos) << timeout;
  EXPECT_LT(took, 5.0);

  limits.timeout_s = 0;
  limits.cancel = std::make_shared<CancelToken>();
  std::thread canceller([token = limits.cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    token->cancel();
  });
  const std::string cancelled = error_of<LimitError>([&] { run_forward(spin, limits); });
  canceller.join();
  EXPECT_NE(cancelled.find("cancelled"), std::string::npos) << cancelled;
  expect_process_usable();
}

// `for i in range(n)` counts without making the list; a list made of a huge range, doubling
// lists and strings, and allocation loops stop at the memory limit.
TEST(Sandbox, MemoryLimitStopsValuesAndTensors) {
  EXPECT_EQ(run_forward("    for i in range(67108864):\n      if i == 10:\n        return i\n    return -1\n").toInt(), 10);
  Limits limits;
  limits.max_memory = 64 << 20;
  const std::string range = error_of<OutOfMemoryError>([&] { run_forward("    return len(list(range(67108864)))\n", limits); });
  EXPECT_NE(range.find("64 MiB"), std::string::npos) << range;
  error_of<OutOfMemoryError>([&] {
    run_forward("    l = [1, 2]\n    for i in range(64):\n      l = l + l\n    return len(l)\n", limits);
  });
  error_of<OutOfMemoryError>([&] { run_forward("    l = [0] * 4294967296\n    return len(l)\n", limits); });
  error_of<OutOfMemoryError>([&] {
    run_forward("    s = 'ab'\n    for i in range(64):\n      s = s + s\n    return len(s)\n", limits);
  });
  const std::string ones = error_of<OutOfMemoryError>([&] { run_forward("    return torch.ones([4294967296])\n", limits); });
  EXPECT_NE(ones.find("m.py:"), std::string::npos) << ones;
  error_of<OutOfMemoryError>([&] {
    run_forward("    l = [torch.ones([1])]\n    for i in range(100000):\n      l.append(torch.ones([1000000]))\n"
                "    return len(l)\n",
                limits);
  });
  // Memory a run held is given back when its values go: the same module runs again.
  Module m = load_bytes(archive("  def forward(self: __torch__.m.M) -> Tensor:\n    return torch.ones([4000000])\n"), limits);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(m.forward({}).toTensor().numel(), 4000000);
  expect_process_usable();
}

// Vulkan tensors the model's code keeps count against Limits::max_device_memory (by default the
// device's memory heap, which on lavapipe is host memory): a loop that keeps making them stops
// with an OutOfMemoryError, and what a run held is given back when its tensors go.
TEST(Sandbox, DeviceMemoryLimitStopsVulkanTensors) {
  TVK_NEED_VULKAN();
  Limits limits;
  limits.max_device_memory = 64 << 20;
  const std::string keep =
      "    l = [torch.ones([1])]\n    for i in range(100000):\n"
      "      l.append(torch.ones([1000000]).to(torch.device(\"vulkan\")))\n    return len(l)\n";
  const std::string error = error_of<OutOfMemoryError>([&] { run_forward(keep, limits, Device::Vulkan); });
  EXPECT_NE(error.find("device memory"), std::string::npos) << error;
  EXPECT_NE(error.find("64 MiB"), std::string::npos) << error;
  // The default bound is the device's heap: a loop of 400 MB tensors stops there too.
  const std::string error_default = error_of<OutOfMemoryError>([&] {
    run_forward("    l = [torch.ones([1])]\n    for i in range(100000):\n"
                "      l.append(torch.ones([100000000]).to(torch.device(\"vulkan\")))\n    return len(l)\n",
                {}, Device::Vulkan);
  });
  EXPECT_NE(error_default.find("the device's memory heap"), std::string::npos) << error_default;
  // 2 x 24 MB a run (and what freezing the method holds on the first), under 128 MiB: each
  // run's tensors are given back, so all ten runs fit where their sum would not.
  limits.max_device_memory = 128 << 20;
  Module m = load_bytes(archive("  def forward(self: __torch__.m.M) -> Tensor:\n"
                                "    return torch.ones([6000000]).to(torch.device(\"vulkan\")) + 1.0\n"),
                        limits, Device::Vulkan);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(m.forward({}).toTensor().numel(), 6000000);
  expect_process_usable();
}

// A list nested 200,000 deep, built at run time, is made, compared, printed and freed
// without recursion deeper than the stack allows.
TEST(Sandbox, DeeplyNestedValuesNeverOverflowTheStack) {
  const std::string build = "    l = [0]\n    for i in range(200000):\n      l = [l]\n";
  EXPECT_EQ(run_forward(build + "    return 1\n").toInt(), 1);
  {
    const IValue deep = run_forward(build + "    return l\n");  // freed here, in the test
    EXPECT_TRUE(deep.isList());
  }
  const std::string compare = error_of<LimitError>([&] { run_forward(build + "    m = [0]\n    return l == l\n"); });
  EXPECT_NE(compare.find("nests too deeply"), std::string::npos) << compare;
  error_of<LimitError>([&] { run_forward(build + "    return str(l)\n"); });
  expect_process_usable();
}

// A list shared 40 times over (`a = [a, a]`) holds 2^40 paths though made in 40 steps: every
// walk over it (comparing, printing, moving its tensors, the graph recorder's search for traced
// values) counts toward the run's steps and ends in a LimitError, on both devices; a caller's
// walk over a value like it (a front end's conversion) is bounded by ValueWalk.
TEST(Sandbox, SharedListsCannotMakeWalksExponential) {
  const std::string build = "    a = [torch.ones([1])]\n    for i in range(40):\n      a = [a, a]\n";
  Limits limits;
  limits.max_steps = 200000;
  for (Device device : {Device::CPU, Device::Vulkan}) {
    if (device == Device::Vulkan && !is_vulkan_available()) continue;
    // Comparing and printing walk it: a LimitError. Taking identity or length does not; returning
    // it may (moving the outputs' tensors). All end within the limit, in seconds.
    for (const std::string use : {"a == [a[0], a[1]]", "str(a)", "a[0] is a[1]", "len(a)", "a"}) {
      const bool walks = use == "a == [a[0], a[1]]" || use == "str(a)";
      const auto start = std::chrono::steady_clock::now();
      try {
        run_forward(build + "    return " + use + "\n", limits, device);
        EXPECT_FALSE(walks) << use << " gave a result";
      } catch (const LimitError& e) {
        EXPECT_TRUE(use == "a" || walks) << use << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("200000 steps"), std::string::npos) << e.what();
      }
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << use;
    }
  }
  IValue shared = IValue::list({IValue(ones({1}))});
  for (int i = 0; i < 40; ++i) shared = IValue::list({shared, shared});
  {
    ValueWalk walk("walking the result");
    std::function<void(const IValue&, int)> visit = [&](const IValue& v, int depth) {
      walk.enter(depth);
      if (v.isList())
        for (const IValue& e : v.toList()) visit(e, depth + 1);
    };
    const std::string walked = error_of<Error>([&] { visit(shared, 0); });
    EXPECT_NE(walked.find("walking the result: the value holds more than"), std::string::npos) << walked;
  }
  const std::string nested = error_of<Error>([&] {
    ValueWalk walk("walking");
    for (int depth = 0; depth < 100; ++depth) walk.enter(depth);
  });
  EXPECT_NE(nested.find("nests more than 64 levels"), std::string::npos) << nested;
  expect_process_usable();
}

namespace {
// Methods f0 .. f(depth-1), each calling the next inside an expression `nesting` deep.
std::string deep_calls(int depth, int nesting) {
  std::string code;
  for (int i = 0; i < depth; ++i) {
    std::string inner = i + 1 < depth ? "self.f" + std::to_string(i + 1) + "(x)" : "x";
    for (int k = 0; k < nesting; ++k) inner = "(" + inner + " + 1)";
    code += "  def f" + std::to_string(i) + "(self: __torch__.m.M, x: int) -> int:\n    return " + inner + "\n";
  }
  return code + "  def forward(self: __torch__.m.M) -> int:\n    return self.f0(0)\n";
}

// Runs `fn` on a new thread with a `stack_bytes` stack (a JVM's or Android's thread is small).
void on_small_stack(size_t stack_bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
}
}  // namespace

// Calls nested near the call-depth limit with expressions near the parser's nesting limit: the
// run's stack budget gives a clean error, the same from a thread with a 256 KiB stack as from
// the main thread; shallower code gives the same result on both.
TEST(Sandbox, DeepCallsAndExpressionsMeetTheStackBudgetOnEveryThread) {
  const std::vector<uint8_t> shallow = archive(deep_calls(20, 10));
  const std::vector<uint8_t> deep = archive(deep_calls(198, 200));
  EXPECT_EQ(load_bytes(shallow).forward({}).toInt(), 200);
  const std::string main_error = error_of<LimitError>([&] { load_bytes(deep).forward({}); });
  EXPECT_NE(main_error.find("nests too deeply"), std::string::npos) << main_error;
  std::string thread_error;
  int64_t thread_result = 0;
  on_small_stack(256 << 10, [&] {
    try {
      thread_result = load_bytes(shallow).forward({}).toInt();
      load_bytes(deep).forward({});
    } catch (const LimitError& e) {
      thread_error = e.what();
    } catch (const std::exception& e) {
      thread_error = std::string("not a LimitError: ") + e.what();
    }
  });
  EXPECT_EQ(thread_result, 200);
  EXPECT_EQ(thread_error, main_error);
  expect_process_usable();
}

// Overlapping records (many names for one huge deflate stream) are refused; extra/ records
// stay compressed until asked for, so a corrupt one fails only then.
TEST(Sandbox, ArchivesWithOverlappingRecordsAreRefusedAndExtrasAreLazy) {
  const std::string forward = "  def forward(self: __torch__.m.M) -> int:\n    return 3\n";
  std::vector<uint8_t> bytes = archive(forward, "EXTRA-PAYLOAD-0123456789");
  // Corrupt the extra record's stored bytes: its CRC no longer matches.
  const std::string payload = "EXTRA-PAYLOAD";
  auto at = std::search(bytes.begin(), bytes.end(), payload.begin(), payload.end());
  ASSERT_NE(at, bytes.end());
  *at = 'X';
  Module m = load_bytes(bytes);
  EXPECT_EQ(m.forward({}).toInt(), 3);
  EXPECT_NE(error_of<Error>([&] { m.extra_files(); }).find("CRC-32 mismatch"), std::string::npos);

  // Point data.pkl's central-directory entry at the code record's local header.
  std::vector<uint8_t> overlapped = archive(forward);
  auto central = [&](const std::string& name) {
    const uint8_t sig[4] = {0x50, 0x4b, 0x01, 0x02};
    for (auto it = overlapped.begin(); (it = std::search(it, overlapped.end(), sig, sig + 4)) != overlapped.end(); ++it)
      if (overlapped.end() - it >= 46 + static_cast<std::ptrdiff_t>(name.size()) &&
          std::string(it + 46, it + 46 + static_cast<std::ptrdiff_t>(name.size())) == name)
        return it;
    ADD_FAILURE() << "no central header for " << name;
    return overlapped.end();
  };
  auto code = central("m/code/__torch__/m.py");
  auto data = central("m/data.pkl");
  ASSERT_TRUE(code != overlapped.end() && data != overlapped.end());
  std::copy(code + 42, code + 46, data + 42);  // the local header offset
  const std::string refused = error_of<Error>([&] { load_bytes(overlapped); });
  EXPECT_NE(refused.find("overlaps"), std::string::npos) << refused;
  expect_process_usable();
}

TEST(Sandbox, SizesParseWithUnits) {
  EXPECT_EQ(parse_size("512"), 512u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("3M"), 3u << 20);
  EXPECT_EQ(parse_size("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("1t"), uint64_t{1} << 40);
  for (const char* bad : {"", "M", "12Q", "99999999999999999999", "20000000000T", "-1"})
    EXPECT_THROW(parse_size(bad), Error) << bad;
  EXPECT_GT(default_max_memory(), 0u);
  EXPECT_LE(default_max_memory(), uint64_t{8} << 30);
}

// Hundreds of generated programs under tight limits: each gives a value or a tvk::Error; none
// crashes, hangs or runs out of memory (under the sanitizer pass: no undefined behaviour).
TEST(Sandbox, GeneratedProgramsEndInAResultOrAnError) {
  Limits limits;
  limits.max_steps = 20000;
  limits.max_memory = 32 << 20;
  limits.timeout_s = 5;
  int results = 0, errors = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const std::string code = testing_support::ProgramGenerator(seed).program();
    try {
      run_forward_code(code, limits);
      ++results;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "seed " << seed << ": not a tvk::Error: " << e.what() << "\n" << code;
    }
  }
  EXPECT_GT(results, 0);
  EXPECT_GT(errors, 0);
  expect_process_usable();
}

// A module loaded for Vulkan runs its code under the same limits: the loops, the recursion and
// the nesting stop as on the CPU, and tensors the code makes on the GPU meet the device's own
// limit as a clean error.
TEST(Sandbox, VulkanModulesMeetTheSameLimits) {
  if (!is_vulkan_available()) GTEST_SKIP() << "no Vulkan device";
  Limits limits;
  limits.max_steps = 100000;
  const std::string loop = error_of<LimitError>([&] {
    run_forward("    n = 0\n    while True:\n      n += 1\n    return n\n", limits, Device::Vulkan);
  });
  EXPECT_NE(loop.find("100000 steps"), std::string::npos) << loop;
  const std::string build = "    l = [0]\n    for i in range(200000):\n      l = [l]\n";
  EXPECT_EQ(run_forward(build + "    return 1\n", {}, Device::Vulkan).toInt(), 1);
  const std::string compare =
      error_of<LimitError>([&] { run_forward(build + "    m = [0]\n    return l == l\n", {}, Device::Vulkan); });
  EXPECT_NE(compare.find("nests too deeply"), std::string::npos) << compare;
  const IValue sum = run_forward("    x = torch.ones([3]) * 2.0\n    return x.sum()\n", {}, Device::Vulkan);
  EXPECT_EQ(sum.toTensor().cpu().item(), 6.0);
  const std::string huge =
      error_of<Error>([&] { run_forward("    return torch.ones([4611686018427387904])\n", {}, Device::Vulkan); });
  EXPECT_FALSE(huge.empty());
  expect_process_usable();
}
