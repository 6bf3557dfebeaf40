// Integer arithmetic as TorchScript and torch's kernels give it on int64: two's complement
// wrapping, Python's floor division and modulo, and checked float-to-int conversion, without
// the signed overflow that C++ leaves undefined (and that traps on x86 for INT64_MIN / -1).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tvk/error.h"

namespace tvk {

template <typename T>
T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T wrapping_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T wrapping_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
// -a, the lowest value mapping to itself (as the hardware's negation does).
template <typename T>
T wrapping_negate(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U{0} - static_cast<U>(a));
}

// Python's a // b: toward minus infinity; the lowest value // -1 wraps to itself.
template <typename T>
T floor_div_int(T a, T b, const char* what) {
  if (b == 0) throw Error(std::string(what) + ": integer division or modulo by zero");
  if (b == -1) return wrapping_negate(a);
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
// Python's a % b: the remainder takes the divisor's sign.
template <typename T>
T python_mod_int(T a, T b, const char* what) {
  if (b == 0) throw Error(std::string(what) + ": integer division or modulo by zero");
  if (b == -1) return 0;
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// a ** b for b >= 0, wrapping.
inline int64_t wrapping_pow(int64_t a, int64_t b) {
  int64_t result = 1;
  while (b > 0) {
    if (b & 1) result = wrapping_mul(result, a);
    a = wrapping_mul(a, a);
    b >>= 1;
  }
  return result;
}

// int(d): truncation toward zero; NaN, infinities and values beyond int64 are an error.
inline int64_t float_to_int(double d, const char* what) {
  // 2^63 is exact in double; every double in [-2^63, 2^63) truncates into int64.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    throw Error(detail::concat(what, ": cannot convert float ", d, " to an integer"));
  return static_cast<int64_t>(d);
}

}  // namespace tvk
