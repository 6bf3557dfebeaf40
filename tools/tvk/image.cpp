#include "image.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>

#include "tvk/error.h"

// stb_image (Debian libstb-dev), compiled into the CLI so that the binary needs no libstb at run
// time. Only the formats classify documents.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_MAX_DIMENSIONS 16384
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace tvk::cli {

bool has_image_extension(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == "png" || ext == "jpg" || ext == "jpeg" || ext == "bmp";
}

Image load_image(const std::string& path, int channels) {
  TVK_CHECK(channels == 1 || channels == 3, "images are decoded to 1 or 3 channels, not ", channels);
  int w = 0, h = 0, n = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> data(stbi_load(path.c_str(), &w, &h, &n, 0), stbi_image_free);
  if (!data)
    throw Error("cannot decode the image " + path + ": " + stbi_failure_reason() + " (tvk classify reads " +
                kImageFormats + ")");
  Image img;
  img.channels = channels;
  img.height = h;
  img.width = w;
  const size_t plane = static_cast<size_t>(w) * static_cast<size_t>(h);
  img.pixels.resize(plane * static_cast<size_t>(channels));
  const stbi_uc* p = data.get();
  const int color = n >= 3 ? 3 : 1;  // channels that carry colour; the rest is alpha
  for (size_t i = 0; i < plane; ++i) {
    const stbi_uc* px = p + i * static_cast<size_t>(n);
    if (channels == 3) {
      for (int c = 0; c < 3; ++c) img.pixels[static_cast<size_t>(c) * plane + i] = px[color == 3 ? c : 0] / 255.0f;
    } else if (color == 1) {
      img.pixels[i] = px[0] / 255.0f;
    } else {
      img.pixels[i] = (0.2989f * px[0] + 0.587f * px[1] + 0.114f * px[2]) / 255.0f;
    }
  }
  return img;
}

namespace {

// One axis of PyTorch's antialiased bilinear interpolation (align_corners=False): for each
// output index the first input index and the normalized weights of the inputs it covers. When
// shrinking, the triangle filter widens by the scale, so every input pixel contributes.
struct AxisWeights {
  std::vector<int> first;
  std::vector<std::vector<float>> weights;
};

AxisWeights axis_weights(int in_size, int out_size) {
  AxisWeights a;
  const double scale = static_cast<double>(in_size) / out_size;
  const double support = scale >= 1.0 ? scale : 1.0;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  for (int i = 0; i < out_size; ++i) {
    const double center = scale * (i + 0.5);
    const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
    const int hi = std::min(static_cast<int>(center + support + 0.5), in_size);
    std::vector<float> w;
    double total = 0;
    for (int j = lo; j < hi; ++j) {
      const double x = std::abs((j - center + 0.5) * invscale);
      const double v = x < 1.0 ? 1.0 - x : 0.0;
      w.push_back(static_cast<float>(v));
      total += v;
    }
    for (float& v : w) v = total != 0 ? static_cast<float>(v / total) : 0.0f;
    a.first.push_back(lo);
    a.weights.push_back(std::move(w));
  }
  return a;
}

}  // namespace

Image resize_bilinear_antialias(const Image& in, int out_height, int out_width) {
  TVK_CHECK(out_height > 0 && out_width > 0 && out_height <= 16384 && out_width <= 16384,
            "resize to ", out_height, "x", out_width, " is out of range");
  const AxisWeights wx = axis_weights(in.width, out_width), wy = axis_weights(in.height, out_height);
  Image out{in.channels, out_height, out_width, {}};
  out.pixels.resize(static_cast<size_t>(in.channels) * out_height * out_width);
  std::vector<float> rows(static_cast<size_t>(in.height) * out_width);  // horizontal pass first
  for (int c = 0; c < in.channels; ++c) {
    const float* src = in.pixels.data() + static_cast<size_t>(c) * in.height * in.width;
    for (int y = 0; y < in.height; ++y)
      for (int x = 0; x < out_width; ++x) {
        float acc = 0;
        const auto& w = wx.weights[x];
        for (size_t k = 0; k < w.size(); ++k) acc += w[k] * src[static_cast<size_t>(y) * in.width + wx.first[x] + k];
        rows[static_cast<size_t>(y) * out_width + x] = acc;
      }
    float* dst = out.pixels.data() + static_cast<size_t>(c) * out_height * out_width;
    for (int y = 0; y < out_height; ++y)
      for (int x = 0; x < out_width; ++x) {
        float acc = 0;
        const auto& w = wy.weights[y];
        for (size_t k = 0; k < w.size(); ++k) acc += w[k] * rows[(wy.first[y] + k) * out_width + x];
        dst[static_cast<size_t>(y) * out_width + x] = acc;
      }
  }
  return out;
}

Image center_crop(const Image& in, int height, int width) {
  // torchvision: top = int(round((H - h) / 2)), Python's round (half to even, as nearbyint);
  // where the crop is larger than the image the outside is zero.
  const int top = static_cast<int>(std::nearbyint((in.height - height) / 2.0));
  const int left = static_cast<int>(std::nearbyint((in.width - width) / 2.0));
  Image out{in.channels, height, width, {}};
  out.pixels.assign(static_cast<size_t>(in.channels) * height * width, 0.0f);
  for (int c = 0; c < in.channels; ++c)
    for (int y = 0; y < height; ++y) {
      const int sy = y + top;
      if (sy < 0 || sy >= in.height) continue;
      for (int x = 0; x < width; ++x) {
        const int sx = x + left;
        if (sx < 0 || sx >= in.width) continue;
        out.pixels[(static_cast<size_t>(c) * height + y) * width + x] =
            in.pixels[(static_cast<size_t>(c) * in.height + sy) * in.width + sx];
      }
    }
  return out;
}

Tensor preprocess(const Image& image, const Preprocess& p) {
  const int c = image.channels;
  const char* allowed = c == 1 ? "1 value" : "1 or 3 values";
  TVK_CHECK(p.mean.size() == 1 || p.mean.size() == static_cast<size_t>(c), "--mean needs ", allowed, " for ", c,
            "-channel images, got ", p.mean.size());
  TVK_CHECK(p.std.size() == 1 || p.std.size() == static_cast<size_t>(c), "--std needs ", allowed, " for ", c,
            "-channel images, got ", p.std.size());
  for (float s : p.std) TVK_CHECK(s != 0.0f, "--std values must not be zero");
  TVK_CHECK(p.crop > 0 && p.crop <= 16384, "--size must be between 1 and 16384, got ", p.crop);
  Image img = image;
  if (p.resize > 0) {
    // torchvision's Resize(int): the short side becomes `resize`, the long side keeps the aspect
    // ratio, truncated.
    const bool wide = image.width > image.height;
    const int64_t short_side = wide ? image.height : image.width, long_side = wide ? image.width : image.height;
    const int64_t new_long = static_cast<int64_t>(p.resize) * long_side / short_side;
    TVK_CHECK(new_long <= 16384, "resizing ", image.width, "x", image.height, " to a short side of ", p.resize,
              " makes it too large");
    const int nh = wide ? p.resize : static_cast<int>(new_long), nw = wide ? static_cast<int>(new_long) : p.resize;
    img = resize_bilinear_antialias(image, nh, nw);
  }
  img = center_crop(img, p.crop, p.crop);
  Tensor t = empty({1, c, p.crop, p.crop});
  float* out = t.data<float>();
  const size_t plane = static_cast<size_t>(p.crop) * p.crop;
  for (int ch = 0; ch < c; ++ch) {
    const float m = p.mean[p.mean.size() == 1 ? 0 : ch], s = p.std[p.std.size() == 1 ? 0 : ch];
    for (size_t i = 0; i < plane; ++i) out[ch * plane + i] = (img.pixels[ch * plane + i] - m) / s;
  }
  return t;
}

}  // namespace tvk::cli
