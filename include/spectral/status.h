// spectral/status.h - errors as values, for the runtime, the compiler and the API.
//
// A Status is ok or carries a message a user can act on (the driver's or
// NVRTC's own words, the kernel involved, the file and line of a graph). An
// Expected<T> (StatusOr<T>) is a value or the Status that prevented it. No
// function of the public API throws or aborts on bad input: it returns one.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace spectral {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool is_ok() const { return !message_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  /// The error message; empty when ok.
  const std::string& message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

/// A value or the error that prevented it.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {}

  bool is_ok() const { return value_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

/// The public API's name for a value or its error.
template <typename T>
using Expected = StatusOr<T>;

}  // namespace spectral
