// Images for `tvk classify`: decoding (PNG, JPEG, BMP, via stb_image) and the preprocessing of
// torchvision's classification transforms on a float tensor: Resize(short side, bilinear,
// antialias=True), CenterCrop, Normalize.
#pragma once

#include <string>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::cli {

// An image as float channels in [0, 1], planar (CHW), channels 1 (gray) or 3 (RGB).
struct Image {
  int channels = 0, height = 0, width = 0;
  std::vector<float> pixels;  // channels * height * width
};

// The formats load_image reads, and the file name extensions a folder's images have.
inline constexpr const char* kImageFormats = "PNG, JPEG and BMP files";
bool has_image_extension(const std::string& path);

// Decodes PNG, JPEG or BMP into `channels` channels (1 or 3; gray is replicated to RGB, RGB is
// made gray with the ITU-R 601-2 weights torchvision uses; alpha is dropped). Throws tvk::Error
// naming the file for anything unreadable or larger than 16384 x 16384.
Image load_image(const std::string& path, int channels);

struct Preprocess {
  int resize = 256;  // short side after resizing; 0: no resize
  int crop = 224;    // center crop, crop x crop
  std::vector<float> mean{0.485f, 0.456f, 0.406f}, std{0.229f, 0.224f, 0.225f};  // 1 or `channels` values
};

// resize -> center crop -> normalize, as torchvision.transforms.functional does on a float
// tensor. Returns [1, channels, crop, crop].
Tensor preprocess(const Image& image, const Preprocess& p);

// The steps on their own, for tests and for callers with their own pipeline.
Image resize_bilinear_antialias(const Image& in, int out_height, int out_width);
Image center_crop(const Image& in, int height, int width);

}  // namespace tvk::cli
