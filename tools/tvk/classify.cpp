// tvk classify: images in, top-k classes out, with torchvision's classification preprocessing.
#include "classify.h"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
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

// IMAGE arguments: files as given, folders as every PNG, JPEG and BMP file under them (sorted),
// and patterns the shell left unexpanded (quoted, or on Windows-style shells) through glob(3).
std::vector<std::string> expand_images(const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& a : arguments) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && has_image_extension(it->path().string())) found.push_back(it->path().string());
      if (ec) throw Error("cannot list the folder " + a + ": " + ec.message());
      if (found.empty()) throw Error(detail::concat("the folder ", a, " holds no images (tvk classify reads ",
                                                    kImageFormats, ")"));
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (a.find_first_of("*?[") != std::string::npos && !fs::exists(a, ec)) {
      glob_t matches{};
      const int rc = glob(a.c_str(), 0, nullptr, &matches);
      std::vector<std::string> found;
      for (size_t i = 0; rc == 0 && i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);  // sorted
      globfree(&matches);
      if (found.empty()) throw Error("no file matches " + a);
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(a);
    }
  }
  return out;
}

}  // namespace

int cmd_classify(int argc, char** argv) {
  Args args(argc, argv,
            {"--model", "--labels", "--topk", "--size", "--resize", "--mean", "--std", "--channels", "--device",
             "--precision", "--batch"},
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

  const int batch = args.get_int("--batch", 1, 1);
  const std::vector<std::string> images = expand_images(args.positional);

  jit::Module module = jit::load(model_path, jit::LoadOptions{device, std::nullopt, args.limits()});
  const bool progress = !json && isatty(fileno(stderr)) && images.size() > 1;
  std::string json_images;
  int64_t classes = -1;
  double model_ms = 0;
  const auto start = std::chrono::steady_clock::now();
  // One image's top-k from its row of scores; `ms` is its share of the batch's forward().
  auto report = [&](size_t n, const float* s, double ms) {
    const std::string& path = images[n];
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
      char time[32];
      std::snprintf(time, sizeof time, "%.3f", ms);
      json_images += detail::concat(n ? ",\n  " : "\n  ", "{\"image\": ", json_string(path), ", \"ms\": ", time,
                                    ", \"top\": [", top, "]}");
    } else {
      if (progress) std::fprintf(stderr, "\r\033[K");
      std::printf("%s  (%.2f ms)\n", path.c_str(), ms);
      for (size_t j = 0; j < k; ++j)
        std::printf(softmax ? "  %6.2f%%  %s (%lld)\n" : "  %9.4f  %s (%lld)\n", softmax ? 100.0 * p[order[j]] : p[order[j]],
                    label_of(order[j]).c_str(), static_cast<long long>(order[j]));
      std::fflush(stdout);
    }
  };
  for (size_t first = 0; first < images.size(); first += static_cast<size_t>(batch)) {
    const size_t count = std::min(static_cast<size_t>(batch), images.size() - first);
    std::vector<Tensor> inputs;
    for (size_t n = first; n < first + count; ++n) inputs.push_back(preprocess(load_image(images[n], channels), pre));
    const Tensor input = count == 1 ? inputs[0] : cat(inputs, 0);
    // A CPU input gives CPU outputs on either device (Module::forward moves it to the GPU).
    const auto t0 = std::chrono::steady_clock::now();
    IValue result = module.forward({IValue(input)});
    if (result.isTuple() || result.isList()) result = result.toList().at(0);  // e.g. (logits, aux)
    if (!result.isTensor()) throw Error(std::string("the model returned a ") + result.tag_name() + ", not a tensor of class scores");
    Tensor scores = result.toTensor().cpu().contiguous();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    model_ms += ms;
    if (scores.dtype() != DType::Float32) throw Error("the model's output is not float32 class scores");
    const int64_t rows = static_cast<int64_t>(count);
    const bool one_row = rows == 1 && (scores.dim() <= 1 || (scores.dim() == 2 && scores.size(0) == 1));
    if (!one_row && !(scores.dim() == 2 && scores.size(0) == rows))
      throw Error(detail::concat("the model's output ", scores.shape_string(), " is not ", rows,
                                 rows == 1 ? " row" : " rows", " of class scores",
                                 rows > 1 ? " (a model made for one image at a time needs --batch 1)" : ""));
    const int64_t row_classes = scores.numel() / rows;
    if (row_classes < 1) throw Error("the model's output " + scores.shape_string() + " holds no class scores");
    if (classes < 0) {
      classes = row_classes;
      if (!labels.empty() && static_cast<int64_t>(labels.size()) != classes)
        throw Error(detail::concat("the labels file has ", labels.size(), " names but the model gives ", classes,
                                   " class scores"));
    } else if (row_classes != classes) {
      throw Error(detail::concat("the model gave ", row_classes, " class scores for ", images[first], ", ", classes,
                                 " before"));
    }
    for (size_t r = 0; r < count; ++r) report(first + r, scores.data<float>() + r * static_cast<size_t>(classes),
                                              ms / static_cast<double>(count));
    if (progress) std::fprintf(stderr, "\rclassified %zu/%zu", first + count, images.size());
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  const double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (json) {
    std::printf("{\"model\": %s, \"device\": \"%s\", \"batch\": %d, \"total_ms\": %.3f, \"images\": [%s\n]}\n",
                json_string(model_path).c_str(), to_string(device), batch, total_ms, json_images.c_str());
  } else {
    std::printf("%zu image(s) in %.1f ms on %s: %.2f ms per image in the model, batches of %d; the rest decoding and "
                "resizing\n", images.size(), total_ms, to_string(device), model_ms / static_cast<double>(images.size()),
                batch);
  }
  return 0;
}

}  // namespace tvk::cli
