//===- Error.h - Error and Expected for the tile runtime ---------*- C++
//-*-===//
//
// Part of tilec. The runtime has no LLVM dependency, so it carries its own
// small equivalents of llvm::Error and llvm::Expected: a failure is a
// human-readable message, and nothing aborts on an unchecked error.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_ERROR_H
#define TILE_RUNTIME_ERROR_H

#include <optional>
#include <string>
#include <utility>

namespace tile {
namespace rt {

/// Success, or a failure carrying a message. Converts to true on failure,
/// like llvm::Error: `if (Error E = f()) return E;`.
class [[nodiscard]] Error {
public:
  /// A success value.
  static Error success() { return Error(); }
  /// A failure with message \p Msg.
  static Error failure(std::string Msg) {
    Error E;
    E.Failed = true;
    E.Msg = std::move(Msg);
    return E;
  }

  /// True when this is a failure.
  explicit operator bool() const { return Failed; }
  /// The message of a failure (empty on success).
  const std::string &message() const { return Msg; }

private:
  Error() = default;
  bool Failed = false;
  std::string Msg;
};

/// Shorthand for Error::failure.
inline Error makeError(std::string Msg) {
  return Error::failure(std::move(Msg));
}

/// A value of type T, or a failure message. Converts to true on success,
/// like llvm::Expected.
template <typename T> class [[nodiscard]] Expected {
public:
  /// A successful result holding \p V.
  Expected(T V) : Value(std::move(V)) {}
  /// A failed result; \p E must be a failure.
  Expected(Error E) : Msg(E.message()) {}

  /// True when a value is held.
  explicit operator bool() const { return Value.has_value(); }
  T &operator*() { return *Value; }
  const T &operator*() const { return *Value; }
  T *operator->() { return &*Value; }
  const T *operator->() const { return &*Value; }
  /// The held value; only valid on success.
  T &get() { return *Value; }
  /// The failure message (empty on success).
  const std::string &message() const { return Msg; }
  /// The failure as an Error (success if a value is held).
  Error takeError() const {
    return Value ? Error::success() : Error::failure(Msg);
  }

private:
  std::optional<T> Value;
  std::string Msg;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_ERROR_H
