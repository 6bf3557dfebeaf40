// torchvision::roi_align: output (k, c, ph, pw) averages the bilinear samples of a grid in bin
// (ph, pw) of box k (rois[k] = batch, x1, y1, x2, y2, scaled by spatial_scale), as torchvision's
// CPU kernel computes them: a sample outside [-1, size] is 0, one in the last row or column reads
// it twice. The grid is sampling_ratio per side, or ceil(box size / pooled size) when it is <= 0,
// at most 512 per side (a bound on the loop a hostile box could ask for; the CPU kernel keeps it).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Rois { float rois[]; };
layout(push_constant) uniform Params {
  int channels, height, width, pooled_h, pooled_w, boxes, batch, sampling_ratio, aligned;
  float spatial_scale;
};

float bilinear(int plane, float yy, float xx) {
  if (yy < -1.0 || yy > float(height) || xx < -1.0 || xx > float(width)) return 0.0;
  yy = max(yy, 0.0);
  xx = max(xx, 0.0);
  int y_low = int(yy), x_low = int(xx), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    yy = float(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    xx = float(x_low);
  } else {
    x_high = x_low + 1;
  }
  float ly = yy - float(y_low), lx = xx - float(x_low), hy = 1.0 - ly, hx = 1.0 - lx;
  int base = plane * height * width;
  return hy * hx * x[base + y_low * width + x_low] + hy * lx * x[base + y_low * width + x_high] +
         ly * hx * x[base + y_high * width + x_low] + ly * lx * x[base + y_high * width + x_high];
}

void main() {
  // One invocation per output element, flat (boxes x channels passes the 65535 work groups a
  // dimension may have: 1000 proposals x 256 channels in Faster R-CNN's box head).
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= uint(boxes * channels * pooled_h * pooled_w)) return;
  int pw = int(i % uint(pooled_w)), ph = int((i / uint(pooled_w)) % uint(pooled_h));
  int kc = int(i / uint(pooled_w * pooled_h));
  int k = kc / channels, c = kc % channels;
  int n = int(rois[k * 5]);
  float offset = aligned == 1 ? 0.5 : 0.0;
  float start_w = rois[k * 5 + 1] * spatial_scale - offset, start_h = rois[k * 5 + 2] * spatial_scale - offset;
  float end_w = rois[k * 5 + 3] * spatial_scale - offset, end_h = rois[k * 5 + 4] * spatial_scale - offset;
  float roi_w = end_w - start_w, roi_h = end_h - start_h;
  if (aligned == 0) {
    roi_w = max(roi_w, 1.0);
    roi_h = max(roi_h, 1.0);
  }
  float bin_h = roi_h / float(pooled_h), bin_w = roi_w / float(pooled_w);
  int grid_h = sampling_ratio > 0 ? sampling_ratio : int(min(ceil(roi_h / float(pooled_h)), 512.0));
  int grid_w = sampling_ratio > 0 ? sampling_ratio : int(min(ceil(roi_w / float(pooled_w)), 512.0));
  float count = float(max(grid_h * grid_w, 1));
  float sum = 0.0;
  if (n >= 0 && n < batch) {
    int plane = n * channels + c;
    for (int iy = 0; iy < grid_h; ++iy) {
      float yy = start_h + float(ph) * bin_h + (float(iy) + 0.5) * bin_h / float(grid_h);
      for (int ix = 0; ix < grid_w; ++ix) {
        float xx = start_w + float(pw) * bin_w + (float(ix) + 0.5) * bin_w / float(grid_w);
        sum += bilinear(plane, yy, xx);
      }
    }
  }
  y[(kc * pooled_h + ph) * pooled_w + pw] = sum / count;
}
