// The tvk CLI on models: run and check succeed on good files and fail with exit status 1 and one
// line on stderr on bad ones.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "io/npy.h"
#include "model_support.h"
#include "support/test_support.h"
#include "support/torch_fixtures.h"

using namespace tvk;

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Result run_cli(const std::string& args) {
  // Per process: CTest runs the tests of this file in parallel processes.
  const std::string dir = ::testing::TempDir() + "tvk_cli_" + std::to_string(getpid()) + "_";
  const std::string out = dir + "out.txt", err = dir + "err.txt";
  const std::string cmd = std::string(TVK_CLI) + " " + args + " >" + out + " 2>" + err;
  Result r;
  const int raw = std::system(cmd.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string fixture(const std::string& name) { return TVK_SOURCE_DIR "/tests/models/torch2/" + name; }

// A copy of `src` with `count` bytes at `offset` overwritten, or cut at `offset` when count is 0.
std::string damaged_copy(const std::string& src, size_t offset, size_t count, const std::string& name) {
  std::string bytes = slurp(src);
  if (count == 0) bytes.resize(std::min(offset, bytes.size()));
  else
    for (size_t i = offset; i < offset + count && i < bytes.size(); ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST(Cli, RunWritesOutputsThatMatchTorch) {
  const std::string out = ::testing::TempDir() + "tvk_cli_y.npy";
  Result r = run_cli("run " + fixture("squeezenet1_1_script.pt") + " --input " + fixture("squeezenet1_1_input.npy") +
                     " --output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  Tensor expected = io::read_npy(fixture("squeezenet1_1_expected0.npy"));
  EXPECT_LE(testing_support::max_abs_diff(io::read_npy(out), expected) / testing_support::max_abs(expected), 1e-4);
}

TEST(Cli, RunOnVulkanMatchesTorch) {
  TVK_NEED_VULKAN();
  const std::string out = ::testing::TempDir() + "tvk_cli_yv.npy";
  Result r = run_cli("run " + fixture("mobilenet_v2_script.pt") + " --device vulkan --input " +
                     fixture("mobilenet_v2_input.npy") + " --output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  Tensor expected = io::read_npy(fixture("mobilenet_v2_expected0.npy"));
  EXPECT_LE(testing_support::max_abs_diff(io::read_npy(out), expected) / testing_support::max_abs(expected), 1e-4);
}

TEST(Cli, RunWithoutOutputPrintsShapes) {
  Result r = run_cli("run " + fixture("control_flow_script.pt") + " --input " + fixture("control_flow_input.npy"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out), 3u) << r.out;  // (total, [total, y]) flattens to three tensors
  EXPECT_NE(r.out.find("output 0: [1, 4, 64, 64] float32"), std::string::npos) << r.out;
}

TEST(Cli, RunNamesNamedTupleFieldsAndWritesOneOutputPerField) {
  TVK_NEED_MODELS();
  const std::string base = testing_support::models_dir() + "/named_tuple";
  Result r = run_cli("run " + base + "_script.pt --input " + base + "_input.npy");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out), 2u) << r.out;  // the None field has no tensor
  EXPECT_NE(r.out.find("output 0 (logits): [1, 8, 64, 64] float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output 1 (pooled): [1, 8] float32"), std::string::npos) << r.out;
}

TEST(Cli, Fp16PrecisionIsForVulkanAndNamedWhenWrong) {
  Result r = run_cli("run " + fixture("control_flow_script.pt") + " --input " + fixture("control_flow_input.npy") +
                     " --precision fp16");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--precision fp16 needs --device vulkan"), std::string::npos) << r.err;
  r = run_cli("run " + fixture("control_flow_script.pt") + " --input " + fixture("control_flow_input.npy") +
              " --precision fp8");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--precision must be fp32 or fp16"), std::string::npos) << r.err;
}

TEST(Cli, OutputCountMismatchSaysHowManyThereAre) {
  Result r = run_cli("run " + fixture("control_flow_script.pt") + " --input " + fixture("control_flow_input.npy") +
                     " --output " + ::testing::TempDir() + "only_one.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("3 output tensor(s)"), std::string::npos) << r.err;
}

TEST(Cli, CheckListsOpsWithCountsAndPassesWhenAllRunOnVulkan) {
  Result r = run_cli("check " + fixture("mobilenet_v2_script.pt"));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("aten::conv2d"), std::string::npos);
  EXPECT_NE(r.out.find("52"), std::string::npos) << "52 convolutions in mobilenet_v2\n" << r.out;
  EXPECT_NE(r.out.find("every op runs on Vulkan"), std::string::npos) << r.out;
}

// Issue 48: check also reads the code, so it lists every op the model calls that tvk lacks or
// runs on the CPU only, with where each is called, not only what one run reaches.
TEST(Cli, CheckListsEveryMissingAndCpuOnlyOpWithWhereItIsCalled) {
  TVK_NEED_MODELS();
  Result r = run_cli("check " + testing_support::models_dir() + "/fallback_mix_script.pt --input-shape 1,3,16,16");
  const size_t cpu_only = r.out.find("that tvk has a CPU kernel only for");
  ASSERT_NE(cpu_only, std::string::npos) << r.out;
  for (const char* op : {"aten::topk", "aten::sort", "torchvision::nms"}) {
    const size_t at = r.out.find(std::string("  ") + op, cpu_only);
    ASSERT_NE(at, std::string::npos) << op << "\n" << r.out;
    EXPECT_NE(r.out.substr(at, r.out.find('\n', at) - at).find("/code/__torch__"), std::string::npos) << r.out;
  }
  // ssdlite's code names ops tvk has no kernel for (its training losses), on paths its input
  // does not take: listed as such, while the run itself completes.
  r = run_cli("check " + testing_support::models_dir() + "/ssdlite_script.pt --input " + testing_support::models_dir() +
              "/ssdlite_input.npy --input-list");
  const size_t unknown = r.out.find("that tvk has no kernel for, on any device");
  ASSERT_NE(unknown, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  aten::smooth_l1_loss", unknown), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("the run stopped"), std::string::npos) << r.out;
}

// Issue 11: check names what the file is (format version, lite bytecode) and its prepacked or
// quantized parts, read from the module graph and the frozen constants.
TEST(Cli, CheckNamesTheArchiveAndItsPrepackedOrQuantizedParts) {
  Result r = run_cli("check " + fixture("mobilenet_v2_script.pt"));
  EXPECT_NE(r.out.find("archive format version "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lite-interpreter bytecode (.ptl): no"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("packed parts"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("quantized modules"), std::string::npos) << r.out;

  TVK_NEED_MODELS();  // the torch 1.13 models tests/models/make_models.py writes
  r = run_cli("check " + testing_support::models_dir() + "/static_quant_script.pt --input-shape 1,3,64,64");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("packed parts: 52 x __torch__.torch.classes.quantized.Conv2dPackedParamsBase"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("packed parts: 1 x __torch__.torch.classes.quantized.LinearPackedParamsBase"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("quantized modules: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("quantized::conv2d_relu.new"), std::string::npos) << r.out;

  r = run_cli("check " + testing_support::models_dir() + "/xnnpack_lite.ptl --input-shape 1,3,16,16");
  EXPECT_NE(r.out.find("lite-interpreter bytecode (.ptl): yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x __torch__.torch.classes.xnnpack.Conv2dOpContext"), std::string::npos) << r.out;

  // An archive in PyTorch 1.3's forms: its version, and the old meanings its ops run with.
  r = run_cli("check " + testing_support::models_dir() + "/legacy_ops_v1.pt --input-shape 1,3,64,64");
  EXPECT_NE(r.out.find("archive format version 1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch.div of integer tensors rounds toward zero"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tvk::legacy_div.Tensor"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli("check " + fixture("mobilenet_v2_script.pt")).out.find("rounds toward zero"), std::string::npos);
}

// Issue 15: a detection model takes a list of images (--input-list); check names the ops that
// fall back, and run on Vulkan needs --cpu-fallback, then prints the detections.
TEST(Cli, DetectionModelTakesItsImagesAsAList) {
  TVK_NEED_MODELS();
  TVK_NEED_VULKAN();
  const std::string model = testing_support::models_dir() + "/ssdlite_script.pt";
  const std::string input = " --input " + testing_support::models_dir() + "/ssdlite_input.npy --input-list";
  Result r = run_cli("check " + model + " --input-shape 3,320,320 --input-list --cpu-fallback");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("torchvision::nms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without a Vulkan kernel: with the CPU fallback they run on the CPU"), std::string::npos) << r.out;
  // It freezes (its `targets=None` argument frozen as None) and partitions.
  EXPECT_NE(r.out.find("optimized for Vulkan, forward puts"), std::string::npos) << r.out;

  r = run_cli("run " + model + input + " --device vulkan");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.err.find("--cpu-fallback"), std::string::npos) << r.err;

  r = run_cli("run " + model + input + " --device vulkan --cpu-fallback");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("output 0 (1.0.boxes): [300, 4] float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output 2 (1.0.labels): [300] int64"), std::string::npos) << r.out;
}

TEST(Cli, BadFilesFailWithOneLineNamingTheProblem) {
  const std::string model = fixture("control_flow_script.pt");
  const std::string input = " --input " + fixture("control_flow_input.npy");
  struct Case {
    std::string file, expect;
  };
  const std::vector<Case> cases = {
      {"/nonexistent/model.pt", "cannot open"},
      {damaged_copy(model, 1000, 0, "trunc.pt"), "trunc.pt"},
      {damaged_copy(model, 0, 4, "not_a_zip.pt"), "not_a_zip.pt"},
      {fixture("control_flow_input.npy"), "zip"},
  };
  for (const Case& c : cases) {
    Result r = run_cli("run " + c.file + input);
    EXPECT_EQ(r.status, 1) << c.file;
    EXPECT_EQ(lines(r.err), 1u) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

// --max-steps, --max-memory and --timeout limit every run of the model's code: past one, the
// command exits 1 with one line naming the limit; within them, it runs as before.
TEST(Cli, LimitsStopRunsWithOneLineNamingTheLimit) {
  const std::string model = fixture("control_flow_script.pt");
  const std::string input = " --input " + fixture("control_flow_input.npy");
  struct Case {
    std::string command, expect;
  };
  const std::vector<Case> cases = {
      {"run " + model + input + " --max-steps 5", "steps (Limits::max_steps, --max-steps)"},
      {"run " + model + input + " --max-memory 1K", "(Limits::max_memory, --max-memory)"},
      {"check " + model + " --max-steps 5", "steps"},
      {"optimize " + model + " -o " + ::testing::TempDir() + "limited.pt --max-steps 5", "steps"},
      {"run " + model + input + " --timeout -2", "--timeout needs a positive number"},
      {"run " + model + input + " --max-memory 12Q", "is not a size"},
  };
  for (const Case& c : cases) {
    Result r = run_cli(c.command);
    EXPECT_EQ(r.status, 1) << c.command;
    EXPECT_EQ(lines(r.err), 1u) << c.command << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.command << ": " << r.err;
  }
  Result r = run_cli("run " + model + input + " --timeout 60 --max-memory 2G --max-steps 1000000");
  EXPECT_EQ(r.status, 0) << r.err;
}

// A model that takes a bool padding mask: `tvk optimize` freezes it for the dtypes of example
// inputs (nn.MultiheadAttention checks the mask's), and the optimized file matches torch.
TEST(Cli, OptimizeTakesExampleInputsForTheirDtypes) {
  TVK_NEED_VULKAN();
  const std::string dir = ::testing::TempDir() + "tvk_mask_input_" + std::to_string(getpid()) + "/";
  std::filesystem::create_directories(dir);
  const std::string script =
      "import sys, numpy as np, torch\n"
      "d = sys.argv[1]\n"
      "torch.manual_seed(0)\n"
      "class M(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.a = torch.nn.MultiheadAttention(16, 4, batch_first=True)\n"
      "    def forward(self, x, mask):\n"
      "        return self.a(x, x, x, key_padding_mask=mask, need_weights=False)[0]\n"
      "m = M().eval()\n"
      "x = torch.randn(2, 6, 16)\n"
      "mask = torch.zeros(2, 6, dtype=torch.bool)\n"
      "mask[1, 3:] = True\n"
      "torch.jit.save(torch.jit.script(m), d + 'm.pt')\n"
      "np.save(d + 'x.npy', x.numpy()); np.save(d + 'mask.npy', mask.numpy())\n"
      "with torch.no_grad(): np.save(d + 'y.npy', m(x, mask).numpy())\n";
  ASSERT_EQ(testing_support::run_python(script, "mask_input", dir), 0);
  const std::string inputs = " --input " + dir + "x.npy --input " + dir + "mask.npy";
  Result r = run_cli("optimize " + dir + "m.pt -o " + dir + "opt.pt" + inputs);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* device : {"cpu", "vulkan"}) {
    r = run_cli("run " + dir + "opt.pt --device " + device + inputs + " --output " + dir + "got.npy");
    ASSERT_EQ(r.status, 0) << device << ": " << r.err;
    EXPECT_LE(testing_support::relative_diff(io::read_npy(dir + "got.npy"), io::read_npy(dir + "y.npy")), 1e-5) << device;
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, CorruptedBytesAnywhereNeverCrash) {
  // Flip 64 bytes at many places of a real archive: each run either works or exits 1 with one
  // line, never a crash (exit status from a signal) or a hang.
  const std::string model = fixture("control_flow_script.pt");
  const size_t size = std::filesystem::file_size(model);
  for (size_t offset = 0; offset < size; offset += size / 23 + 1) {
    const std::string path = damaged_copy(model, offset, 64, "flipped.pt");
    Result r = run_cli("run " + path + " --input " + fixture("control_flow_input.npy"));
    EXPECT_TRUE(r.status == 0 || (r.status == 1 && lines(r.err) == 1u))
        << "offset " << offset << ": status " << r.status << ", stderr: " << r.err;
  }
}

TEST(Cli, WrongInputsAreErrorsNotCrashes) {
  const std::string model = fixture("mobilenet_v2_script.pt");
  const std::string dir = ::testing::TempDir();
  io::write_npy(dir + "x3d.npy", tvk::rand({3, 32, 32}));
  Result r = run_cli("run " + model + " --input " + dir + "x3d.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("expected 4D input (got 3D input)"), std::string::npos) << r.err;
  r = run_cli("run " + model);  // no input at all
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  io::write_npy(dir + "x5ch.npy", tvk::rand({1, 5, 32, 32}));
  r = run_cli("run " + model + " --input " + dir + "x5ch.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("conv2d"), std::string::npos) << r.err;
  r = run_cli("run " + model + " --device gpu");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown device"), std::string::npos) << r.err;
}

TEST(Cli, OptimizeReportsThePassesAndCheckListsTheVulkanOps) {
  TVK_NEED_VULKAN();
  const std::string out = ::testing::TempDir() + "cli_mobilenet2-vulkan.pt";
  Result r = run_cli("optimize " + fixture("mobilenet_v2_script.pt") + " -o " + out + " --backend vulkan");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("batch norms folded into convolutions: 52"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("convolutions packed: 52"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("activations fused into convolutions: 35"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropouts removed: 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CPU<->Vulkan transfers inserted: 2"), std::string::npos) << r.out;
  r = run_cli("check " + out);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("vulkan_prepack::run_conv2d_context"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vulkan_prepack::run_linear_context"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("aten::batch_norm"), std::string::npos) << r.out;
  const std::string y = ::testing::TempDir() + "cli_mobilenet2-vulkan_y.npy";
  r = run_cli("run " + out + " --device vulkan --input " + fixture("mobilenet_v2_input.npy") + " --output " + y);
  ASSERT_EQ(r.status, 0) << r.err;
  Tensor expected = io::read_npy(fixture("mobilenet_v2_expected0.npy"));
  EXPECT_LE(testing_support::max_abs_diff(io::read_npy(y), expected) / testing_support::max_abs(expected), 1e-4);
}

TEST(Cli, OptimizeRejectsUnknownOptions) {
  const std::string out = ::testing::TempDir() + "never_written.pt";
  for (const char* bad : {" --backend metal", " --blocklist NO_SUCH_PASS", " --no-such-flag", ""}) {
    Result r = run_cli("optimize " + fixture("mobilenet_v2_script.pt") + (std::string(bad).empty() ? "" : " -o " + out) + bad);
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_EQ(lines(r.err), 1u) << bad << ": " << r.err;
  }
}

TEST(Cli, TuneKeepsATableThatLaterRunsUseAndSurvivesItsCorruption) {
  TVK_NEED_VULKAN();
  // The CLI processes get a cache directory of their own (the table lives there).
  const std::string cache = ::testing::TempDir() + "tvk_cli_tune_" + std::to_string(getpid());
  std::filesystem::remove_all(cache);
  const char* saved = std::getenv("TVK_CACHE_DIR");
  const std::string previous = saved ? saved : "";
  setenv("TVK_CACHE_DIR", cache.c_str(), 1);
  unsetenv("TVK_TUNE");
  struct Restore {
    std::string previous;
    bool had;
    ~Restore() {
      if (had) setenv("TVK_CACHE_DIR", previous.c_str(), 1);
      else unsetenv("TVK_CACHE_DIR");
    }
  } restore{previous, saved != nullptr};
  const std::string model = fixture("mobilenet_v2_script.pt"), input = fixture("mobilenet_v2_input.npy");
  Result r = run_cli("tune " + model + " --input " + input);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tuned "), std::string::npos) << r.out;
  std::string table;
  for (const auto& e : std::filesystem::directory_iterator(cache))
    if (e.path().filename().string().rfind("tuning-", 0) == 0) table = e.path().string();
  ASSERT_FALSE(table.empty()) << "no tuning table in " << cache;
  const std::string written = slurp(table);
  EXPECT_GE(lines(written), 3u) << written;  // a header, the device, at least one layer
  EXPECT_NE(r.out.find(table), std::string::npos) << r.out;
  // Tuned once: a second run times nothing new.
  r = run_cli("tune " + model + " --input " + input + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"tuned\": []"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(table), written);
  // Later runs use the table and still match torch, with it intact and with it corrupt.
  const Tensor expected = io::read_npy(fixture("mobilenet_v2_expected0.npy"));
  const std::string out = ::testing::TempDir() + "tvk_cli_tuned.npy";
  for (const bool corrupt : {false, true}) {
    SCOPED_TRACE(corrupt ? "corrupt table" : "table as tuned");
    if (corrupt) std::ofstream(table, std::ios::binary | std::ios::trunc) << written.substr(0, written.size() / 2) << "\x01\x02";
    r = run_cli("run " + model + " --device vulkan --input " + input + " --output " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_LE(testing_support::max_abs_diff(io::read_npy(out), expected) / testing_support::max_abs(expected), 1e-4);
    if (corrupt) {
      EXPECT_EQ(lines(r.err), 1u) << r.err;
      EXPECT_NE(r.err.find("ignoring the tuning file"), std::string::npos) << r.err;
    } else {
      EXPECT_EQ(r.err, "");
    }
  }
  r = run_cli("bench " + model + " --input " + input + " --iters 1 --warmup 0 --tuning sometimes");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("tuning 'sometimes' is not one of off, cached, on"), std::string::npos) << r.err;
  std::filesystem::remove_all(cache);
}
