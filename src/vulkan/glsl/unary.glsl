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
          GELU_TANH = 15, POW = 16, FAKE_QUANT = 17, RECIPROCAL = 18;

// Abramowitz & Stegun 7.1.26: |error| < 1.5e-7, enough for fp32 gelu.
float erf_approx(float z) {
  float a = abs(z);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  float e = 1.0 - poly * exp(-a * a);
  return z < 0.0 ? -e : e;
}

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  float v = x[i];
  float r;
  if (OP == RELU) r = max(v, 0.0);
  else if (OP == CLAMP) r = min(max(v, p0), p1);
  else if (OP == ADD_SCALAR) r = v + p0 * p1;
  else if (OP == MUL_SCALAR) r = v * p0;
  else if (OP == SIGMOID) r = 1.0 / (1.0 + exp(-v));
  else if (OP == TANH) r = tanh(clamp(v, -15.0, 15.0));
  else if (OP == HARDSWISH) r = v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
  else if (OP == HARDSIGMOID) r = clamp(v + 3.0, 0.0, 6.0) / 6.0;
  else if (OP == SILU) r = v / (1.0 + exp(-v));
  else if (OP == GELU) r = 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752));
  else if (OP == GELU_TANH) {
    float inner = 0.7978845608028654 * (v + 0.044715 * v * v * v);  // sqrt(2/pi)
    r = 0.5 * v * (1.0 + tanh(clamp(inner, -15.0, 15.0)));
  }
  else if (OP == RELU6) r = min(max(v, 0.0), 6.0);
  else if (OP == NEG) r = -v;
  else if (OP == EXP) r = exp(v);
  else if (OP == SQRT) r = sqrt(v);
  else if (OP == RECIPROCAL) r = 1.0 / v;
  else if (OP == POW) {
    // As std::pow: GLSL's pow is undefined for a negative base, and for 0 ** 0.
    float a = p0 == 2.0 ? v * v : (p0 == 0.0 ? 1.0 : pow(abs(v), p0));
    bool integral = floor(p0) == p0;
    if (v < 0.0 && p0 != 2.0 && p0 != 0.0) r = integral ? (mod(p0, 2.0) == 1.0 ? -a : a) : uintBitsToFloat(0x7fc00000u);
    else r = a;
  }
  else if (OP == FAKE_QUANT) {
    // As PyTorch's fake_quantize_per_tensor_affine: round half to even (nearbyint) in float.
    const float q = clamp(roundEven(v * p0) + p2, p3, p4);
    r = (q - p2) * p1;
  }
  else r = inversesqrt(v);
  y[i] = r;
}
