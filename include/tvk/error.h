// tvk::Error and its family: the one exception type every layer throws.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tvk {

// Every failure tvk reports is a tvk::Error (or a subclass) whose message names
// what failed and where: the op, the shapes, the file and offset, the Vulkan call.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An op exists but has no kernel for the device its inputs live on.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// A Vulkan call failed (other than running out of memory).
class VulkanError : public Error {
 public:
  using Error::Error;
};

// Host or device memory ran out; the process can go on after it.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// A run of model code went past one of its limits (tvk::Limits): time, steps, stack, or a
// cancel; the message names the limit and the code location.
class LimitError : public Error {
 public:
  using Error::Error;
};

// Throws an error of `e`'s own type (UnsupportedError stays UnsupportedError, and so on) whose
// message is `context` + ": " + e's message: how the interpreter adds the code location.
[[noreturn]] inline void rethrow_with_context(const Error& e, const std::string& context) {
  const std::string message = context + ": " + e.what();
  if (dynamic_cast<const OutOfMemoryError*>(&e)) throw OutOfMemoryError(message);
  if (dynamic_cast<const UnsupportedError*>(&e)) throw UnsupportedError(message);
  if (dynamic_cast<const VulkanError*>(&e)) throw VulkanError(message);
  if (dynamic_cast<const LimitError*>(&e)) throw LimitError(message);
  throw Error(message);
}

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

}  // namespace tvk

// Throws tvk::Error with the streamed message when `cond` is false.
#define TVK_CHECK(cond, ...)                                        \
  do {                                                              \
    if (!(cond)) throw ::tvk::Error(::tvk::detail::concat(__VA_ARGS__)); \
  } while (0)
