// BrokenPromise: what waiters get when a promise is dropped unfulfilled.
#pragma once

#include <exception>
#include <optional>
#include <utility>

namespace tiffany {

class BrokenPromise : public std::exception {
 public:
  const char* what() const noexcept override { return "promise destroyed without a value"; }
};

namespace detail {

/// Holds a future's value; the void case holds nothing.
template <class T>
struct ValueSlot {
  std::optional<T> value;
  template <class U>
  void set(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() { return std::move(*value); }
};

template <>
struct ValueSlot<void> {
  void set() noexcept {}
  void take() noexcept {}
};

}  // namespace detail
}  // namespace tiffany
