//===- Result.h - Value-or-error results for lib/Numerics --------*- C++
//-*-===//
//
// Part of tilec. lib/Numerics depends on the C++ standard library only, so it
// cannot use llvm::Expected; these two small types play the same role.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_RESULT_H
#define TILE_NUMERICS_RESULT_H

#include <optional>
#include <string>
#include <utility>

namespace tile {
namespace numerics {

/// Success, or an error with a human-readable message.
class [[nodiscard]] Status {
public:
  /// A successful status.
  Status() = default;
  /// A failed status carrying \p Msg (must not be empty).
  static Status error(std::string Msg) {
    Status S;
    S.Msg = std::move(Msg);
    S.Failed = true;
    return S;
  }
  /// True on success.
  bool ok() const { return !Failed; }
  explicit operator bool() const { return ok(); }
  /// The error message; empty on success.
  const std::string &message() const { return Msg; }

private:
  std::string Msg;
  bool Failed = false;
};

/// Either a value of type T or an error message.
template <typename T> class [[nodiscard]] Result {
public:
  /// A successful result holding \p V.
  Result(T V) : Value(std::move(V)) {}
  /// A failed result; \p S must be an error status.
  Result(Status S)
      : Msg(S.ok() ? std::string("success status used as an error")
                   : S.message()) {}
  /// A failed result carrying \p Msg.
  static Result error(std::string Msg) { return Result(Status::error(Msg)); }

  /// True when a value is held.
  explicit operator bool() const { return Value.has_value(); }
  bool ok() const { return Value.has_value(); }
  /// The held value (only valid when ok()).
  T &operator*() { return *Value; }
  const T &operator*() const { return *Value; }
  T *operator->() { return &*Value; }
  const T *operator->() const { return &*Value; }
  /// The error message; empty on success.
  const std::string &message() const { return Msg; }
  /// The status of this result (drops the value).
  Status status() const { return ok() ? Status() : Status::error(Msg); }

private:
  std::optional<T> Value;
  std::string Msg;
};

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_RESULT_H
