// The TVK_* environment variables: each one the library reads is documented in README's tables,
// and the kernel-choice ones are read in one place (src/vulkan/ops/kernel_options.cpp).
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support/test_support.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every "TVK_..." string literal in the library's sources, by file.
std::map<std::string, std::set<std::string>> variables_read() {
  std::map<std::string, std::set<std::string>> out;
  const std::regex literal("\"(TVK_[A-Z0-9_]+)\"");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TVK_SOURCE_DIR) + "/src")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    const std::string text = read_file(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it)
      out[(*it)[1].str()].insert(std::filesystem::relative(entry.path(), TVK_SOURCE_DIR).string());
  }
  return out;
}

}  // namespace

TEST(EnvironmentVariables, EveryVariableTheLibraryReadsIsInReadmesTable) {
  const std::string readme = read_file(std::string(TVK_SOURCE_DIR) + "/README.md");
  const auto read = variables_read();
  ASSERT_GT(read.size(), 20u) << "found too few TVK_ variables in src/: is TVK_SOURCE_DIR right?";
  for (const auto& [name, files] : read)
    EXPECT_NE(readme.find("\n| `" + name + "` |"), std::string::npos)
        << name << " (read in " << *files.begin() << ") has no row in README's environment variable tables";
}

TEST(EnvironmentVariables, KernelChoiceVariablesAreReadOnlyIntoTheKernelOptions) {
  const std::string options_file = "src/vulkan/ops/kernel_options.cpp";
  const auto read = variables_read();
  int kernel_variables = 0;
  for (const auto& [name, files] : read) {
    if (!files.count(options_file)) continue;
    ++kernel_variables;
    std::string where;
    for (const std::string& f : files) where += " " + f;
    EXPECT_EQ(files.size(), 1u) << name << " is read into the kernel options and also elsewhere:" << where;
  }
  EXPECT_GE(kernel_variables, 15);
}
