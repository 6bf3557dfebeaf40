// Every input a fuzzer once found, or a hostile file a report described
// (tests/fuzz/regressions/<target>/), replayed through the parser it broke: each must now end in
// a clean tvk::Error or succeed, never crash; a file named *.error.* must end in the error. The
// normal suite runs it; scripts/fuzz.sh adds the same files to its corpora.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/npy.h"
#include "jit/frontend/parser.h"
#include "jit/serialization/import.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "support/test_support.h"
#include "tvk/device.h"
#include "tvk/module.h"

using namespace tvk;
using namespace tvk::jit;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Runs `parse` on each regression input of `target`; returns how many there were.
template <typename Parse>
int replay(const std::string& target, Parse parse) {
  const fs::path dir = fs::path(TVK_SOURCE_DIR) / "tests/fuzz/regressions" / target;
  int n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++n;
    const std::vector<uint8_t> data = bytes_of(entry.path());
    const bool must_fail = entry.path().filename().string().find(".error.") != std::string::npos;
    try {
      parse(data);
      EXPECT_FALSE(must_fail) << entry.path() << " ran; it must end in a tvk::Error";
    } catch (const Error&) {
      // a clean error is the expected outcome
    }
  }
  return n;
}

}  // namespace

TEST(FuzzRegressions, EveryFoundInputEndsInACleanErrorOrAResult) {
  int total = 0;
  total += replay("zip", [](const std::vector<uint8_t>& d) {
    ZipReader zip = ZipReader::from_bytes(d, "regression.zip");
    for (const std::string& r : zip.records()) (void)zip.read(r);
  });
  total += replay("unpickle", [](const std::vector<uint8_t>& d) { (void)Unpickler::unpickle(d, "regression.pkl"); });
  total += replay("parser", [](const std::vector<uint8_t>& d) {
    (void)parse_source(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()), "regression.py");
  });
  total += replay("npy", [](const std::vector<uint8_t>& d) { (void)io::parse_npy(d, "regression.npy"); });
  // Whole files: loaded and run once on a 4-element input (issue 14's hostile view takes one)
  // and on an image-shaped one, on the CPU and, where there is one, on Vulkan.
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  for (Device device : devices)
    for (const IntList& shape : {IntList{4}, IntList{1, 3, 8, 8}})
      total += replay("load", [device, shape](const std::vector<uint8_t>& d) {
        jit::Module module(import_archive(ZipReader::from_bytes(d, "regression.pt"), "regression.pt", device));
        std::vector<IValue> inputs;
        inputs.emplace_back(tvk::rand(shape, 1));
        module.forward(std::move(inputs));
      });
  RecordProperty("inputs", total);
  std::printf("replayed %d fuzz regression inputs\n", total);
}
