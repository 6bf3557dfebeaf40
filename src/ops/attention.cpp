// aten::_native_multi_head_attention, the op nn.MultiheadAttention's inference fast path calls
// (torchvision's vit_b_16 reaches it). A composite of registered ops (linear, matmul, softmax,
// views), so it runs on whichever device its inputs are on, with those ops' kernels.
#include <cmath>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

// query/key/value: [B, L, E] (batch first, as the fast path requires). Returns the attention
// output [B, L, E] and, with need_weights, the attention weights [B, L, S] averaged over heads
// (or [B, H, L, S] when not averaged); otherwise an empty tensor, as PyTorch does.
std::tuple<Tensor, Tensor> native_multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       int64_t embed_dim, int64_t num_heads, const Tensor& qkv_weight,
                                                       const Tensor& qkv_bias, const Tensor& proj_weight,
                                                       const Tensor& proj_bias, const std::optional<Tensor>& mask,
                                                       bool need_weights, bool average_attn_weights,
                                                       std::optional<int64_t> /*mask_type*/) {
  const char* op = "aten::_native_multi_head_attention";
  TVK_CHECK(!mask || !mask->defined(), op, ": attention masks are not supported");
  TVK_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3, op, ": query, key and value must be 3-D [B, L, E], got ",
            query.shape_string(), ", ", key.shape_string(), ", ", value.shape_string());
  TVK_CHECK(query.sizes() == key.sizes() && key.sizes() == value.sizes(), op, ": query ", query.shape_string(),
            ", key ", key.shape_string(), " and value ", value.shape_string(), " must have one shape");
  TVK_CHECK(num_heads > 0 && embed_dim % num_heads == 0 && query.size(2) == embed_dim, op, ": embed_dim ", embed_dim,
            " must match the query ", query.shape_string(), " and divide by num_heads ", num_heads);
  TVK_CHECK(qkv_weight.dim() == 2 && qkv_weight.size(0) == 3 * embed_dim && qkv_weight.size(1) == embed_dim, op,
            ": qkv_weight must be [3 * embed_dim, embed_dim], got ", qkv_weight.shape_string());
  const int64_t b = query.size(0), l = query.size(1), s = key.size(1), d = embed_dim / num_heads;
  // The in-projection, split by rows of the packed weight: q, k and v each get their third.
  auto project = [&](const Tensor& x, int64_t part) {
    const Tensor w = slice(qkv_weight, 0, part * embed_dim, (part + 1) * embed_dim);
    const Tensor bias = qkv_bias.defined() ? slice(qkv_bias, 0, part * embed_dim, (part + 1) * embed_dim).contiguous() : Tensor();
    return linear(x, w.contiguous(), bias);
  };
  auto heads = [&](const Tensor& x, int64_t len) {  // [B, len, E] -> [B, H, len, D]
    return transpose(reshape(x, {b, len, num_heads, d}), 1, 2).contiguous();
  };
  Tensor q, k_t, v;  // [B, H, L, D], [B, H, D, S], [B, H, S, D]
  if (query.is_same(key) && key.is_same(value)) {
    // Self-attention (vit's x, x, x): one product with the whole packed weight, [B, L, 3E], and
    // q, k (transposed) and v taken from it by heads with one strided view each (a copy on
    // Vulkan), instead of copying thirds of the weight each run.
    const Tensor qkv = linear(query, qkv_weight, qkv_bias).contiguous();
    const int64_t e = embed_dim, at = qkv.storage_offset(), row = 3 * e, batch = l * row;
    q = as_strided(qkv, {b, num_heads, l, d}, {batch, d, row, 1}, at);
    k_t = as_strided(qkv, {b, num_heads, d, l}, {batch, d, 1, row}, at + e);
    v = as_strided(qkv, {b, num_heads, l, d}, {batch, d, row, 1}, at + 2 * e);
  } else {
    q = heads(project(query, 0), l);
    k_t = transpose(heads(project(key, 1), s), 2, 3).contiguous();
    v = heads(project(value, 2), s);
  }
  q = mul(q, 1.0 / std::sqrt(static_cast<double>(d)));
  const Tensor weights = softmax(matmul(q, k_t), -1);  // [B, H, L, S]
  const Tensor attended = reshape(transpose(matmul(weights, v), 1, 2).contiguous(), {b, l, embed_dim});
  const Tensor out = linear(attended, proj_weight, proj_bias);
  if (!need_weights) return {out, empty({0}, DType::Float32, query.device())};  // PyTorch's empty tensor
  if (!average_attn_weights) return {out, weights};
  return {out, mean(weights, IntList{1})};
}

}  // namespace

// One kernel for both devices: it only calls registered ops, which dispatch on their inputs.
TVK_REGISTER_OP_ANY_DEVICE(
    "aten::_native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim, int num_head, "
    "Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, Tensor? mask=None, "
    "bool need_weights=True, bool average_attn_weights=True, int? mask_type=None) -> (Tensor, Tensor)",
    native_multi_head_attention);

}  // namespace tvk::ops
