// Elementwise y = f(x) for the activation family; the function is a specialisation constant
// so each variant compiles to straight-line code. In-place ops bind the same buffer twice.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int OP = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint numel;
  float p0;  // clamp/hardtanh min, scalar operand, exponent
  float p1;  // clamp/hardtanh max, alpha
  float p2, p3, p4;  // FAKE_QUANT: p0 1 / scale, p1 scale, p2 zero point, p3 and p4 the quantized range
};

const int RELU = 0, CLAMP = 1, ADD_SCALAR = 2, MUL_SCALAR = 3, SIGMOID = 4, TANH = 5, HARDSWISH = 6,
          HARDSIGMOID = 7, SILU = 8, GELU = 9, RELU6 = 10, NEG = 11, EXP = 12, SQRT = 13, RSQRT = 14,
          GELU_TANH = 15, POW = 16, FAKE_QUANT = 17, RECIPROCAL = 18, ABS = 19, LOG = 20, LOG2 = 21,
          LOG10 = 22, LOG1P = 23, EXPM1 = 24, SIN = 25, COS = 26, FLOOR = 27, CEIL = 28, ROUND = 29, TRUNC = 30,
          SIGN = 31, ERF = 32, LEAKY_RELU = 33, ELU = 34, SOFTPLUS = 35, MISH = 36, LOG_SIGMOID = 37,
          HARDSHRINK = 38, THRESHOLD = 39, SCALAR_POW = 40, FLOOR_DIV_SCALAR = 41, REMAINDER_SCALAR = 42,
          FMOD_SCALAR = 43, TRUNC_DIV_SCALAR = 44, TAN = 45, ASIN = 46, ACOS = 47, ATAN = 48, SINH = 49, COSH = 50,
          ASINH = 51, ACOSH = 52, ATANH = 53, ERFC = 54, EXP2 = 55, FRAC = 56, SOFTSHRINK = 57;

#include "torch_math.glslh"
#include "nan_clamp.glslh"
#include "activations.glslh"

// log(1 + v) and exp(v) - 1 without losing v's digits near 0 (Kahan's forms).
float log1p_(float v) {
  float u = 1.0 + v;
  return u == 1.0 ? v : log(u) * (v / (u - 1.0));
}
float expm1_(float v) {
  if (abs(v) >= 0.5) return exp(v) - 1.0;
  float u = exp(v);
  return u == 1.0 ? v : (u - 1.0) * (v / log(u));
}
// log(1 + exp(v)), as PyTorch's softplus: v itself past `threshold` (in units of beta v).
float softplus_(float v, float beta, float threshold) {
  return v * beta > threshold ? v : log1p_(exp(v * beta)) / beta;
}

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  float v = x[i];
  float r;
  if (OP == RELU) r = v < 0.0 ? 0.0 : v;  // NaN stays NaN
  else if (OP == CLAMP) r = clamp_nan(v, p0, p1);
  else if (OP == ADD_SCALAR) r = v + p0 * p1;
  else if (OP == MUL_SCALAR) r = v * p0;
  else if (OP == SIGMOID) r = sigmoid_(v);
  else if (OP == TANH) r = tanh_(v);
  else if (OP == HARDSWISH) r = hardswish_(v);
  else if (OP == HARDSIGMOID) r = hardsigmoid_(v);
  else if (OP == SILU) r = silu_(v);
  else if (OP == GELU) r = gelu_(v);
  else if (OP == GELU_TANH) r = gelu_tanh_(v);
  else if (OP == RELU6) r = clamp_nan(v, 0.0, 6.0);
  else if (OP == NEG) r = -v;
  else if (OP == EXP) r = exp(v);
  else if (OP == SQRT) r = sqrt(v);
  else if (OP == RECIPROCAL) r = 1.0 / v;
  else if (OP == POW) r = torch_pow(v, p0);
  else if (OP == SCALAR_POW) r = torch_pow(p0, v);  // a scalar base, the tensor the exponent
  else if (OP == FAKE_QUANT) {
    // As PyTorch's fake_quantize_per_tensor_affine: round half to even (nearbyint) in float.
    const float q = clamp(roundEven(v * p0) + p2, p3, p4);
    r = (q - p2) * p1;
  }
  else if (OP == ABS) r = abs(v);
  else if (OP == LOG) r = log(v);
  else if (OP == LOG2) r = log2(v);
  else if (OP == LOG10) r = log2(v) * 0.30102999566398120;  // log10(2)
  else if (OP == LOG1P) r = log1p_(v);
  else if (OP == EXPM1) r = expm1_(v);
  else if (OP == SIN) r = sin(v);
  else if (OP == COS) r = cos(v);
  else if (OP == FLOOR) r = floor(v);
  else if (OP == CEIL) r = ceil(v);
  else if (OP == ROUND) r = roundEven(v);  // half to even, as PyTorch
  else if (OP == TRUNC) r = trunc(v);
  else if (OP == SIGN) r = sign(v);
  else if (OP == ERF) r = erf_approx(v);
  else if (OP == LEAKY_RELU) r = v > 0.0 ? v : v * p0;
  // p0 alpha, p1 scale, p2 input scale (elu, selu and celu).
  else if (OP == ELU) r = v > 0.0 ? v * p1 : p1 * p0 * expm1_(v * p2);
  else if (OP == SOFTPLUS) r = softplus_(v, p0, p1);
  else if (OP == MISH) r = v * tanh(min(softplus_(v, 1.0, 20.0), 15.0));  // tanh(15) is 1 in float
  else if (OP == LOG_SIGMOID) r = min(v, 0.0) - log1p_(exp(-abs(v)));
  else if (OP == HARDSHRINK) r = (v >= -p0 && v <= p0) ? 0.0 : v;  // NaN stays NaN
  else if (OP == THRESHOLD) r = v <= p0 ? p1 : v;
  else if (OP == FLOOR_DIV_SCALAR) r = floor_div(v, p0);
  else if (OP == REMAINDER_SCALAR) r = python_mod(v, p0);
  else if (OP == FMOD_SCALAR) r = c_fmod(v, p0);
  else if (OP == TRUNC_DIV_SCALAR) r = trunc(v / p0);
  else if (OP == TAN) r = tan(v);
  else if (OP == ASIN) r = torch_asin(v);
  else if (OP == ACOS) r = torch_acos(v);
  else if (OP == ATAN) r = torch_atan(v);
  // Near 0 the exponential forms cancel: sinh and asinh by their series there, the rest through
  // log1p / expm1 (GLSL leaves the hyperbolic functions' precision to the driver).
  else if (OP == SINH) r = abs(v) < 0.25 ? v * (1.0 + v * v * (1.0 / 6.0 + v * v / 120.0)) : 0.5 * (exp(v) - exp(-v));
  else if (OP == COSH) r = 0.5 * (exp(v) + exp(-v));
  // Past 1e4, v * v + 1 is v * v in float: log(2 |v|), which cannot overflow.
  else if (OP == ASINH) r = abs(v) < 0.25 ? v * (1.0 - v * v * (1.0 / 6.0 - v * v * 0.075))
                          : sign(v) * (abs(v) > 1e4 ? log(abs(v)) + 0.6931471805599453 : log(abs(v) + sqrt(v * v + 1.0)));
  else if (OP == ACOSH) r = v > 1e4 ? log(v) + 0.6931471805599453 : log(v + sqrt(v * v - 1.0));
  else if (OP == ATANH) r = 0.5 * log1p_(2.0 * v / (1.0 - v));
  else if (OP == ERFC) r = 1.0 - erf_approx(v);
  else if (OP == EXP2) r = exp2(v);
  else if (OP == FRAC) r = v - trunc(v);
  else if (OP == SOFTSHRINK) r = v > p0 ? v - p0 : (v < -p0 ? v + p0 : 0.0);  // NaN gives 0, as in torch
  else r = inversesqrt(v);
  y[i] = r;
}
