// libFuzzer harnesses for every parser of untrusted input (issue 14) and for model code (issue
// 49). One source, one binary per target, chosen by TVK_FUZZ_TARGET at compile time
// (tests/fuzz/CMakeLists.txt). A finding is
// anything but a clean tvk::Error: a crash, a sanitizer report, a hang, an exception of
// another type (which the harness lets escape, so libFuzzer reports it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/npy.h"
#include "jit/frontend/parser.h"
#include "jit/serialization/import.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "jit/serialization/zip_writer.h"
#include "support/program_generator.h"
#include "tvk/error.h"
#include "tvk/module.h"
#include "tvk/tensor.h"

using namespace tvk;
using namespace tvk::jit;

namespace {

#if defined(TVK_FUZZ_LOAD_VULKAN)
constexpr Device kDevice = Device::Vulkan;
#else
constexpr Device kDevice = Device::CPU;
#endif

// The whole path a user's file takes: archive, code, data, then one forward on a small input.
void load_and_run(const uint8_t* data, size_t size) {
  ZipReader zip = ZipReader::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.pt");
  jit::Module module(import_archive(zip, "fuzz.pt", kDevice));
  std::vector<IValue> inputs;
  inputs.emplace_back(tvk::rand({1, 3, 8, 8}, 1));
  module.forward(std::move(inputs));
}

// Structure-aware: the input's bytes choose a generated program (loops, recursion, nested values,
// integer edge values, allocation), which runs under tight limits as a hostile file's would.
void run_program(const uint8_t* data, size_t size) {
  const std::string code = testing_support::ProgramGenerator(data, size).program();
  Limits limits;
  limits.max_steps = 20000;
  limits.max_memory = 32 << 20;
  limits.timeout_s = 5;
  ZipReader zip = ZipReader::from_bytes(testing_support::script_archive(code), "program.pt");
  jit::Module module(import_archive(zip, "program.pt", Device::CPU, limits));
  module.forward({});
}

// A torch.export program's JSON (models/model.json) in cnn_bn.pt2's archive, with its weights:
// loaded, translated and run on the archive's sample input.
void load_exported_program(const uint8_t* data, size_t size) {
  static const ZipReader base = ZipReader::open(TVK_SOURCE_DIR "/tests/models/torch2/export/cnn_bn.pt2");
  ZipWriter out = ZipWriter::in_memory("fuzz");
  for (const std::string& record : base.records()) {
    if (record == "models/model.json") out.add(record, data, size);
    else out.add(record, base.read(record));
  }
  out.finish();
  ZipReader zip = ZipReader::from_bytes(out.bytes(), "fuzz.pt2");
  Limits limits;
  limits.max_steps = 200000;
  limits.max_memory = 256 << 20;
  limits.timeout_s = 10;
  jit::Module module(import_archive(zip, "fuzz.pt2", Device::CPU, limits));
  module.forward(module.example_inputs());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
#if defined(TVK_FUZZ_ZIP)
    ZipReader zip = ZipReader::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.zip");
    for (const std::string& record : zip.records()) (void)zip.read(record);
#elif defined(TVK_FUZZ_UNPICKLE)
    (void)Unpickler::unpickle(std::vector<uint8_t>(data, data + size), "fuzz.pkl");
#elif defined(TVK_FUZZ_PARSER)
    (void)parse_source(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.py");
#elif defined(TVK_FUZZ_NPY)
    (void)io::parse_npy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
#elif defined(TVK_FUZZ_LOAD) || defined(TVK_FUZZ_LOAD_VULKAN)
    load_and_run(data, size);
#elif defined(TVK_FUZZ_PROGRAM)
    run_program(data, size);
#elif defined(TVK_FUZZ_EXPORT)
    load_exported_program(data, size);
#else
#error "define one TVK_FUZZ_* target"
#endif
  } catch (const Error&) {
    // The expected outcome for bad input: a clean error.
  }
  return 0;
}
