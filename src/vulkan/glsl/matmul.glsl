// Batched matrix product out[s][i][j] = beta * bias[i][j] + alpha * sum_k a[s][i][k] * b[s][k][j];
// both operands are read through strides, so transposed weights (linear) need no copy, and the
// bias through broadcast strides (0 on broadcast dims). Operands are read as R32 texels: a
// texel view reaches maxTexelBufferElements floats, past the largest storage binding (alexnet's
// and vgg's classifier weights exceed lavapipe's 128 MiB), and lavapipe fetches texels faster.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) uniform samplerBuffer a;
layout(binding = 2) uniform samplerBuffer b;
layout(binding = 3) uniform samplerBuffer bias;  // a stands in when has_bias = 0
layout(push_constant) uniform Params {
  int rows, cols, inner, batch;
  int a_batch_stride, a_row_stride, a_inner_stride;
  int b_batch_stride, b_inner_stride, b_col_stride;
  int bias_row_stride, bias_col_stride, has_bias;
  float alpha, beta;
};

void main() {
  int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y), s = int(gl_GlobalInvocationID.z);
  if (j >= cols || i >= rows || s >= batch) return;
  int pa = s * a_batch_stride + i * a_row_stride;
  int pb = s * b_batch_stride + j * b_col_stride;
  float acc = 0.0;
  for (int k = 0; k < inner; ++k) acc += texelFetch(a, pa + k * a_inner_stride).r * texelFetch(b, pb + k * b_inner_stride).r;
  float r = alpha * acc;
  if (has_bias == 1) r += beta * texelFetch(bias, i * bias_row_stride + j * bias_col_stride).r;
  y[(s * rows + i) * cols + j] = r;
}
