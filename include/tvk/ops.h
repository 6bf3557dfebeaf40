// The typed C++ op API (like at::add): each call goes through the dispatcher, so it runs on the
// device its inputs live on and throws tvk::UnsupportedError where that device has no kernel.
#pragma once

#include <optional>

#include "tvk/ivalue.h"

namespace tvk {

Tensor add(const Tensor& self, const Tensor& other, double alpha = 1);
Tensor add(const Tensor& self, double other, double alpha = 1);
Tensor& add_(Tensor& self, const Tensor& other, double alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, double alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, double other);
Tensor div(const Tensor& self, const Tensor& other);
Tensor div(const Tensor& self, double other);
Tensor relu(const Tensor& self);
Tensor& relu_(Tensor& self);
Tensor clamp(const Tensor& self, std::optional<double> min, std::optional<double> max);
Tensor hardtanh(const Tensor& self, double min_val = -1, double max_val = 1);
Tensor& hardtanh_(Tensor& self, double min_val = -1, double max_val = 1);

// Calls any registered op by schema name ("aten::add.Tensor") with positional arguments;
// trailing arguments with defaults may be left out.
IValue call_op(const std::string& full_name, Stack args);

}  // namespace tvk
