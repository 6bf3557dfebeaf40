// tvk classify: images in, top-k classes out, with torchvision's classification preprocessing.
#include "classify.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>

#include "args.h"
#include "image.h"
#include "jit/serialization/import.h"
#include "tvk/tvk.h"
#include "tvk/vulkan_info.h"

namespace tvk::cli {
namespace {

const char* const kImageNetClasses[] = {
#include "imagenet_classes.inc"
};
constexpr size_t kImageNetClassCount = sizeof(kImageNetClasses) / sizeof(kImageNetClasses[0]);
static_assert(kImageNetClassCount == 1000);

std::vector<float> parse_floats(const std::string& flag, const std::string& text) {
  std::vector<float> out;
  for (const std::string& item : split_commas(text)) {
    try {
      size_t used = 0;
      out.push_back(std::stof(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw Error(flag + " needs comma-separated numbers, got '" + text + "'");
    }
  }
  if (out.empty()) throw Error(flag + " needs at least one number");
  return out;
}

// One name per line; a missing file or a count that does not match the model's classes is an
// error, since wrong names are worse than none.
std::vector<std::string> read_labels(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read the labels file " + path);
  std::vector<std::string> labels;
  for (std::string line; std::getline(f, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
  }
  while (!labels.empty() && labels.back().empty()) labels.pop_back();
  return labels;
}

struct Ranked {
  int64_t index;
  double probability;
};

}  // namespace

int cmd_classify(int argc, char** argv) {
  Args args(argc, argv,
            {"--model", "--labels", "--topk", "--size", "--resize", "--mean", "--std", "--channels", "--device",
             "--precision"},
            {"--json", "--no-softmax", "--cpu-fallback"});
  apply_cpu_fallback(args);
  if (args.positional.empty()) throw Error("needs at least one IMAGE");
  const std::string model_path = args.get("--model", "");
  if (model_path.empty()) throw Error("needs --model MODEL");
  const Device device = parse_device(args.get("--device", "vulkan"));
  apply_precision(args, device);
  Preprocess pre;
  pre.crop = args.get_int("--size", 224, 1);
  pre.resize = args.get_int("--resize", pre.crop * 256 / 224, 0);  // ImageNet's 256 -> 224 ratio
  if (args.flags.count("--mean")) pre.mean = parse_floats("--mean", args.get("--mean", ""));
  if (args.flags.count("--std")) pre.std = parse_floats("--std", args.get("--std", ""));
  const int channels = args.get_int("--channels", 3, 1);
  if (channels != 1 && channels != 3) throw Error("--channels must be 1 or 3");
  if (channels == 1 && !args.flags.count("--mean")) pre.mean = {0.5f};
  if (channels == 1 && !args.flags.count("--std")) pre.std = {0.5f};
  const int topk = args.get_int("--topk", 5, 1);
  const bool json = args.has("--json"), softmax = !args.has("--no-softmax");
  std::vector<std::string> labels;
  if (args.flags.count("--labels")) labels = read_labels(args.get("--labels", ""));

  jit::Module module = jit::load(model_path, jit::LoadOptions{device, std::nullopt, args.limits()});
  const bool progress = !json && isatty(fileno(stderr)) && args.positional.size() > 20;
  std::string json_images;
  for (size_t n = 0; n < args.positional.size(); ++n) {
    const std::string& path = args.positional[n];
    Tensor input = preprocess(load_image(path, channels), pre);
    // A CPU input gives CPU outputs on either device (Module::forward moves it to the GPU).
    IValue result = module.forward({IValue(input)});
    if (result.isTuple() || result.isList()) result = result.toList().at(0);  // e.g. (logits, aux)
    if (!result.isTensor()) throw Error(std::string("the model returned a ") + result.tag_name() + ", not a tensor of class scores");
    Tensor scores = result.toTensor().cpu().contiguous();
    if (scores.dtype() != DType::Float32) throw Error("the model's output is not float32 class scores");
    const int64_t classes = scores.numel();
    if (classes < 1 || (scores.dim() > 0 && scores.size(0) != classes && !(scores.dim() == 2 && scores.size(0) == 1)))
      throw Error("the model's output " + scores.shape_string() + " is not one row of class scores");
    if (n == 0 && !labels.empty() && static_cast<int64_t>(labels.size()) != classes)
      throw Error(detail::concat("the labels file has ", labels.size(), " names but the model gives ", classes,
                                 " class scores"));
    const float* s = scores.data<float>();
    std::vector<double> p(s, s + classes);
    if (softmax) {
      const double top = *std::max_element(p.begin(), p.end());
      double total = 0;
      for (double& v : p) total += (v = std::exp(v - top));
      for (double& v : p) v /= total;
    }
    std::vector<int64_t> order(static_cast<size_t>(classes));
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min<size_t>(static_cast<size_t>(topk), order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int64_t a, int64_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
    auto label_of = [&](int64_t i) -> std::string {
      if (!labels.empty()) return labels[static_cast<size_t>(i)];
      if (classes == static_cast<int64_t>(kImageNetClassCount)) return kImageNetClasses[i];
      return "class " + std::to_string(i);
    };
    if (json) {
      std::string top;
      for (size_t j = 0; j < k; ++j) {
        char num[32];
        std::snprintf(num, sizeof num, "%.9g", p[order[j]]);
        top += detail::concat(j ? ", " : "", "{\"index\": ", order[j], ", \"label\": ", json_string(label_of(order[j])),
                              softmax ? ", \"probability\": " : ", \"score\": ", num, "}");
      }
      json_images += detail::concat(n ? ",\n  " : "\n  ", "{\"image\": ", json_string(path), ", \"top\": [", top, "]}");
    } else {
      std::printf("%s\n", path.c_str());
      for (size_t j = 0; j < k; ++j)
        std::printf(softmax ? "  %6.2f%%  %s (%lld)\n" : "  %9.4f  %s (%lld)\n", softmax ? 100.0 * p[order[j]] : p[order[j]],
                    label_of(order[j]).c_str(), static_cast<long long>(order[j]));
    }
    if (progress) std::fprintf(stderr, "\rclassified %zu/%zu", n + 1, args.positional.size());
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (json)
    std::printf("{\"model\": %s, \"device\": \"%s\", \"images\": [%s\n]}\n", json_string(model_path).c_str(),
                to_string(device), json_images.c_str());
  return 0;
}

}  // namespace tvk::cli
