// aten::_native_multi_head_attention, the op nn.MultiheadAttention's inference fast path calls
// (torchvision's vit_b_16 reaches it), and aten::_transformer_encoder_layer_fwd, nn.
// TransformerEncoderLayer's. Composites of registered ops (linear, matmul, softmax, views), so
// they run on whichever device their inputs are on, with those ops' kernels.
//
// nn.TransformerEncoder's fast path turns a padded batch and its key padding mask into a nested
// tensor (aten::_nested_tensor_from_mask), runs the layers on it and pads it back
// (aten::to_padded_tensor). tvk keeps such a nested tensor padded, with its mask as one more
// feature: [B, L, E] data and the [B, L] "keep" mask as [B, L, E + 1]. The layer op reads it by
// its width (embed_dim + 1), attends over the kept positions only, and to_padded_tensor writes
// the padding value where the mask is off: what torch's nested path gives.
#include <cmath>
#include <limits>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

// The scores [B, H, L, S] with a mask applied: a 2-D mask is a key padding mask [B, S] (mask
// types 1 and 2) or, with type 0, an attention mask [L, S]; others broadcast to [B, H, L, S]. A bool mask
// hides positions where it is true; a float mask is added.
Tensor masked_scores(const char* op, const Tensor& scores, const Tensor& mask, std::optional<int64_t> mask_type,
                     int64_t b, int64_t h, int64_t l, int64_t s) {
  Tensor m = mask;
  const int64_t type = mask_type.value_or(2);
  if (m.dim() == 2 && type != 0) {  // a key padding mask (types 1 and 2, as torch takes it)
    TVK_CHECK(m.size(0) == b && m.size(1) == s, op, ": a key padding mask must be [", b, ", ", s, "], got ",
              m.shape_string());
    m = reshape(m, {b, 1, 1, s});
  } else if (type == 0) {
    TVK_CHECK(m.dim() == 2 && m.size(0) == l && m.size(1) == s, op, ": an attention mask must be [", l, ", ", s,
              "], got ", m.shape_string());
  } else {
    TVK_CHECK(m.dim() <= 4, op, ": a ", m.shape_string(), " mask does not broadcast to [", b, ", ", h, ", ", l, ", ", s,
              "]");
  }
  m = expand(m.to(scores.device()), {b, h, l, s});
  if (m.dtype() == DType::Bool)
    return call("aten::masked_fill.Scalar",
                {scores, m.contiguous(), IValue(-std::numeric_limits<double>::infinity())})
        .toTensor();
  return add(scores, m.contiguous());
}

// query/key/value: [B, L, E] (batch first, as the fast path requires). Returns the attention
// output [B, L, E] and, with need_weights, the attention weights [B, L, S] averaged over heads
// (or [B, H, L, S] when not averaged); otherwise an empty tensor, as PyTorch does.
std::tuple<Tensor, Tensor> native_multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       int64_t embed_dim, int64_t num_heads, const Tensor& qkv_weight,
                                                       const Tensor& qkv_bias, const Tensor& proj_weight,
                                                       const Tensor& proj_bias, const std::optional<Tensor>& mask,
                                                       bool need_weights, bool average_attn_weights,
                                                       std::optional<int64_t> mask_type) {
  const char* op = "aten::_native_multi_head_attention";
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
  Tensor scores = matmul(q, k_t);  // [B, H, L, S]
  if (mask && mask->defined()) scores = masked_scores(op, scores, *mask, mask_type, b, num_heads, l, s);
  const Tensor weights = softmax(scores, -1);
  const Tensor attended = reshape(transpose(matmul(weights, v), 1, 2).contiguous(), {b, l, embed_dim});
  const Tensor out = linear(attended, proj_weight, proj_bias);
  if (!need_weights) return {out, empty({0}, DType::Float32, query.device())};  // PyTorch's empty tensor
  if (!average_attn_weights) return {out, weights};
  return {out, mean(weights, IntList{1})};
}

// nn.TransformerEncoderLayer's inference step: self-attention and the feed-forward block, each
// with its residual add and layer norm (before, with norm_first, or after). `src` is [B, L, E],
// or tvk's padded nested form [B, L, E + 1] (see the top of this file).
Tensor transformer_encoder_layer(const Tensor& src, int64_t embed_dim, int64_t num_heads, const Tensor& qkv_weight,
                                 const Tensor& qkv_bias, const Tensor& proj_weight, const Tensor& proj_bias,
                                 bool use_gelu, bool norm_first, double eps, const Tensor& norm_weight_1,
                                 const Tensor& norm_bias_1, const Tensor& norm_weight_2, const Tensor& norm_bias_2,
                                 const Tensor& ffn_weight_1, const Tensor& ffn_bias_1, const Tensor& ffn_weight_2,
                                 const Tensor& ffn_bias_2, const std::optional<Tensor>& mask,
                                 std::optional<int64_t> mask_type) {
  const char* op = "aten::_transformer_encoder_layer_fwd";
  TVK_CHECK(src.dim() == 3 && (src.size(2) == embed_dim || src.size(2) == embed_dim + 1), op,
            ": src must be [B, L, ", embed_dim, "], got ", src.shape_string());
  Tensor x = src;
  std::optional<Tensor> attention_mask = mask;
  std::optional<int64_t> attention_mask_type = mask_type;
  Tensor keep;  // the nested form's mask, [B, L] (1 where a position is kept)
  if (src.size(2) == embed_dim + 1) {
    TVK_CHECK(!mask || !mask->defined(), op, ": a nested input takes no mask");
    x = slice(src, 2, 0, embed_dim).contiguous();
    keep = reshape(slice(src, 2, embed_dim, embed_dim + 1).contiguous(), {src.size(0), src.size(1)});
    attention_mask = call("aten::eq.Scalar", {keep, IValue(0.0)}).toTensor();  // hide the padding
    attention_mask_type = 1;
  }
  const IntList normalized{embed_dim};
  auto attend = [&](const Tensor& y) {
    return std::get<0>(native_multi_head_attention(y, y, y, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
                                                   proj_bias, attention_mask, false, true, attention_mask_type));
  };
  auto feed_forward = [&](const Tensor& y) {
    const Tensor hidden = linear(y, ffn_weight_1, ffn_bias_1);
    return linear(use_gelu ? gelu(hidden) : relu(hidden), ffn_weight_2, ffn_bias_2);
  };
  if (norm_first) {
    x = add(x, attend(layer_norm(x, normalized, norm_weight_1, norm_bias_1, eps)));
    x = add(x, feed_forward(layer_norm(x, normalized, norm_weight_2, norm_bias_2, eps)));
  } else {
    x = layer_norm(add(x, attend(x)), normalized, norm_weight_1, norm_bias_1, eps);
    x = layer_norm(add(x, feed_forward(x)), normalized, norm_weight_2, norm_bias_2, eps);
  }
  if (!keep.defined()) return x;
  return cat({x, unsqueeze(keep, 2)}, 2);
}

// torch._nested_tensor_from_mask(t, mask): t [B, L, E] with its keep mask [B, L], in tvk's
// padded nested form [B, L, E + 1].
Tensor nested_tensor_from_mask(const Tensor& t, const Tensor& mask, bool /*mask_check*/) {
  const char* op = "aten::_nested_tensor_from_mask";
  TVK_CHECK(t.dim() == 3 && mask.dim() == 2 && mask.size(0) == t.size(0) && mask.size(1) == t.size(1), op,
            ": t must be [B, L, E] and mask [B, L], got ", t.shape_string(), " and ", mask.shape_string());
  TVK_CHECK(t.dtype() == DType::Float32, op, ": t must be float32");
  // The padding holds no values in a nested tensor: zeros here.
  const Tensor keep = call("aten::ne.Scalar", {mask.to(t.device()), IValue(0.0)}).toTensor();
  const Tensor hidden = call("aten::logical_not", {keep}).toTensor();
  const Tensor data = call("aten::masked_fill.Scalar", {t, expand(unsqueeze(hidden, 2), t.sizes()).contiguous(),
                                                         IValue(0.0)}).toTensor();
  return cat({data, unsqueeze(call("aten::to.dtype", {keep, IValue(int64_t{6}), IValue(false), IValue(false),
                                                       IValue()}).toTensor(), 2)}, 2);
}

// Whether each row of the keep mask [B, L] is ones then zeros: torch's nested fast path needs it.
bool nested_tensor_from_mask_left_aligned(const Tensor& t, const Tensor& mask) {
  (void)t;
  const Tensor m = mask.cpu().contiguous();
  TVK_CHECK(m.dim() == 2, "aten::_nested_tensor_from_mask_left_aligned: mask must be [B, L], got ", m.shape_string());
  const Tensor keep = call("aten::ne.Scalar", {m, IValue(0.0)}).toTensor();
  const bool* p = keep.data<bool>();
  for (int64_t r = 0; r < keep.size(0); ++r)
    for (int64_t c = 1; c < keep.size(1); ++c)
      if (p[r * keep.size(1) + c] && !p[r * keep.size(1) + c - 1]) return false;
  return true;
}

// torch.to_padded_tensor(nested, padding): the data [B, L, E] with `padding` where the mask of
// tvk's nested form is off; output_size may only grow it to a larger [B', L', E'].
Tensor to_padded_tensor(const Tensor& self, double padding, std::optional<IntList> output_size) {
  const char* op = "aten::to_padded_tensor";
  TVK_CHECK(self.dim() == 3 && self.size(2) >= 1, op, ": expected a nested tensor made by _nested_tensor_from_mask, got ",
            self.shape_string());
  const int64_t e = self.size(2) - 1;
  const Tensor data = slice(self, 2, 0, e).contiguous();
  const Tensor hidden = call("aten::eq.Scalar", {slice(self, 2, e, e + 1).contiguous(), IValue(0.0)}).toTensor();
  Tensor out = call("aten::masked_fill.Scalar", {data, expand(hidden, data.sizes()).contiguous(), IValue(padding)})
                   .toTensor();
  if (!output_size || output_size->empty()) return out;
  TVK_CHECK(output_size->size() == 3 && (*output_size)[0] >= out.size(0) && (*output_size)[1] >= out.size(1) &&
                (*output_size)[2] >= out.size(2),
            op, ": output_size ", shape_string(*output_size), " is smaller than the padded tensor ", out.shape_string());
  if (IntList(*output_size) == out.sizes()) return out;
  const IntList& size = *output_size;  // pads go last dim first: (left, right) pairs
  const IntList pads{0, size[2] - out.size(2), 0, size[1] - out.size(1), 0, size[0] - out.size(0)};
  return call("aten::constant_pad_nd", {out, IValue(pads), IValue(padding)}).toTensor();
}

}  // namespace

namespace {
// F.scaled_dot_product_attention: softmax(q k^T * scale + mask) v over the last two dimensions,
// batch dimensions broadcast. A bool mask keeps positions where it is true (the opposite of a key
// padding mask); a float mask is added; is_causal hides keys after each query (tril of ones
// [L, S]). enable_gqa lets key and value have fewer heads than the query, each serving a group of
// query heads. Dropout is a training-time op: tvk runs inference and refuses dropout_p > 0.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  const char* op = "aten::scaled_dot_product_attention";
  TVK_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op, ": query, key and value need 2 or more dimensions, got ",
            query.shape_string(), ", ", key.shape_string(), ", ", value.shape_string());
  TVK_CHECK(query.size(-1) == key.size(-1) && key.size(-2) == value.size(-2), op, ": query ", query.shape_string(), ", key ",
            key.shape_string(), " and value ", value.shape_string(), " do not agree (query and key share the last size, key and value the one before)");
  TVK_CHECK(dropout_p == 0.0, op, ": dropout_p ", dropout_p, " (dropout is for training; tvk runs inference)");
  TVK_CHECK(!(is_causal && attn_mask && attn_mask->defined()), op, ": is_causal and an attn_mask together");
  const int64_t l = query.size(-2), s = key.size(-2);
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && key.size(-3) != query.size(-3)) {
    const int64_t hq = query.size(-3), hk = key.size(-3);
    TVK_CHECK(hk > 0 && hq % hk == 0 && value.size(-3) == hk, op, ": ", hq, " query heads do not share ", hk,
              " key and value heads evenly");
    auto repeat = [&](const Tensor& t) {  // [..., Hk, S, D] -> [..., Hk * r, S, D], each head r times
      IntList sizes = t.sizes();
      IntList expanded = sizes;
      expanded.insert(expanded.end() - 2, hq / hk);
      IntList grouped = sizes;
      grouped.insert(grouped.end() - 2, 1);
      IntList out = sizes;
      out[out.size() - 3] = hq;
      return reshape(expand(reshape(t, grouped), expanded).contiguous(), out);
    };
    k = repeat(k);
    v = repeat(v);
  }
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  Tensor scores = matmul(mul(query, factor), transpose(k, -2, -1).contiguous());  // [..., L, S]
  if (is_causal) {
    Tensor hide = empty({l, s}, DType::Bool);
    for (int64_t i = 0; i < l; ++i)
      for (int64_t j = 0; j < s; ++j) hide.data<bool>()[i * s + j] = j > i;
    scores = call("aten::masked_fill.Scalar", {scores, hide.to(scores.device()), IValue(-std::numeric_limits<double>::infinity())})
                 .toTensor();
  } else if (attn_mask && attn_mask->defined()) {
    const Tensor& m = *attn_mask;
    if (m.dtype() == DType::Bool) {
      const Tensor hide = call("aten::logical_not", {m.to(scores.device())}).toTensor();
      scores = call("aten::masked_fill.Scalar", {scores, hide, IValue(-std::numeric_limits<double>::infinity())}).toTensor();
    } else {
      scores = add(scores, m.to(scores.device()));
    }
  }
  return matmul(softmax(scores, -1), v);
}
}  // namespace

// One kernel for both devices: it only calls registered ops, which dispatch on their inputs.
TVK_REGISTER_OP_ANY_DEVICE(
    "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
    "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
    scaled_dot_product_attention);
TVK_REGISTER_OP_ANY_DEVICE(
    "aten::_native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim, int num_head, "
    "Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, Tensor? mask=None, "
    "bool need_weights=True, bool average_attn_weights=True, int? mask_type=None) -> (Tensor, Tensor)",
    native_multi_head_attention);

TVK_REGISTER_OP_ANY_DEVICE(
    "aten::_transformer_encoder_layer_fwd(Tensor src, int embed_dim, int num_heads, Tensor qkv_weight, "
    "Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, bool use_gelu, bool norm_first, float eps, "
    "Tensor norm_weight_1, Tensor norm_bias_1, Tensor norm_weight_2, Tensor norm_bias_2, Tensor ffn_weight_1, "
    "Tensor ffn_bias_1, Tensor ffn_weight_2, Tensor ffn_bias_2, Tensor? mask=None, int? mask_type=None) -> Tensor",
    transformer_encoder_layer);
TVK_REGISTER_OP_ANY_DEVICE("aten::_nested_tensor_from_mask(Tensor t, Tensor mask, bool mask_check=True) -> Tensor",
                           nested_tensor_from_mask);
TVK_REGISTER_OP_ANY_DEVICE("aten::_nested_tensor_from_mask_left_aligned(Tensor t, Tensor mask) -> bool",
                           nested_tensor_from_mask_left_aligned);
TVK_REGISTER_OP_ANY_DEVICE("aten::to_padded_tensor(Tensor self, float padding, int[]? output_size=None) -> Tensor",
                           to_padded_tensor);

}  // namespace tvk::ops
