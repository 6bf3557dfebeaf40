// dropout, feature_dropout, alpha_dropout and feature_alpha_dropout (and the first two's in-place
// forms): tvk runs inference, where all are the
// identity (train=False), as is dropout with p = 0 whatever train says (torchvision 0.14's
// swin_t calls its attention with training=True and p = 0).
// The same kernel serves the Vulkan backend, since it touches no data.
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Tensor dropout_impl(const char* op, const Tensor& input, double p, bool train) {
  check_defined(op, input, "input");
  TVK_CHECK(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, got ", p);
  TVK_CHECK(!train || p == 0, op, ": train=True is not supported (tvk runs models for inference; call eval())");
  return input;
}
Tensor dropout(const Tensor& input, double p, bool train) { return dropout_impl("aten::dropout", input, p, train); }
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("aten::feature_dropout", input, p, train);
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("aten::alpha_dropout", input, p, train);
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl("aten::feature_alpha_dropout", input, p, train);
}
Tensor dropout_(const Tensor& input, double p, bool train) { return dropout_impl("aten::dropout_", input, p, train); }
Tensor feature_dropout_(const Tensor& input, double p, bool train) {
  return dropout_impl("aten::feature_dropout_", input, p, train);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::dropout(Tensor input, float p, bool train) -> Tensor", dropout);
TVK_REGISTER_OP_ANY_DEVICE("aten::feature_dropout(Tensor input, float p, bool train) -> Tensor", feature_dropout);
TVK_REGISTER_OP_ANY_DEVICE("aten::alpha_dropout(Tensor input, float p, bool train) -> Tensor", alpha_dropout);
TVK_REGISTER_OP_ANY_DEVICE("aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor",
                           feature_alpha_dropout);
TVK_REGISTER_OP_ANY_DEVICE("aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)", dropout_);
TVK_REGISTER_OP_ANY_DEVICE("aten::feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)",
                           feature_dropout_);

}  // namespace tvk::ops::cpu
