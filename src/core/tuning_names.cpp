// The names of tvk::Tuning (tvk/vulkan_info.h), in every build: the CLI and the bindings parse
// them whether or not Vulkan is built in.
#include <algorithm>
#include <cctype>

#include "tvk/error.h"
#include "tvk/vulkan_info.h"

namespace tvk {

const char* to_string(Tuning tuning) {
  switch (tuning) {
    case Tuning::Off:
      return "off";
    case Tuning::Cached:
      return "cached";
    case Tuning::On:
      return "on";
  }
  return "?";
}

Tuning parse_tuning(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (n == "off" || n == "0") return Tuning::Off;
  if (n == "cached") return Tuning::Cached;
  if (n == "on" || n == "1") return Tuning::On;
  throw Error("tuning '" + name + "' is not one of off, cached, on");
}

}  // namespace tvk
