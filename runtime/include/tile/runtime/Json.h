//===- Json.h - A compact JSON value, reader and writer ----------*- C++
//-*-===//
//
// Part of tilec. Enough JSON for bundle manifests and tuning caches without
// any dependency: objects keep their key order, integers that fit in int64_t
// are kept exact, and parse errors name the line and column.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_JSON_H
#define TILE_RUNTIME_JSON_H

#include "tile/runtime/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tile {
namespace rt {
namespace json {

class Value;
/// An object: key/value pairs in insertion order (keys are unique).
using Object = std::vector<std::pair<std::string, Value>>;
/// An array of values.
using Array = std::vector<Value>;

/// A JSON value.
class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool B) : K(Kind::Bool), Bool(B) {}
  /// Any integer type (unsigned values above INT64_MAX wrap).
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                    !std::is_same_v<T, bool>>>
  Value(T I)
      : K(Kind::Number), IsInt(true), Int(static_cast<int64_t>(I)),
        Num(static_cast<double>(static_cast<int64_t>(I))) {}
  Value(double D) : K(Kind::Number), Num(D) {}
  Value(const char *S) : K(Kind::String), Str(S) {}
  Value(std::string S) : K(Kind::String), Str(std::move(S)) {}
  Value(Array A);
  Value(Object O);

  Kind kind() const { return K; }
  bool isNull() const { return K == Kind::Null; }
  bool isBool() const { return K == Kind::Bool; }
  bool isNumber() const { return K == Kind::Number; }
  /// A number written without fraction or exponent that fits in int64_t.
  bool isInteger() const { return K == Kind::Number && IsInt; }
  bool isString() const { return K == Kind::String; }
  bool isArray() const { return K == Kind::Array; }
  bool isObject() const { return K == Kind::Object; }

  bool getBool() const { return Bool; }
  double getNumber() const { return Num; }
  int64_t getInteger() const { return Int; }
  const std::string &getString() const { return Str; }
  const Array &getArray() const { return *Arr; }
  /// Mutable access; copies first if the array is shared with another Value.
  Array &getArray();
  const Object &getObject() const { return *Obj; }
  /// Mutable access; copies first if the object is shared with another Value.
  Object &getObject();

  /// The member \p Key of an object, or null when absent / not an object.
  const Value *find(std::string_view Key) const;
  /// Sets (or replaces) member \p Key of an object.
  void set(std::string Key, Value V);

  /// Structural equality (numbers compare by value).
  bool operator==(const Value &B) const;
  bool operator!=(const Value &B) const { return !(*this == B); }

  /// The JSON type name ("object", "number", ...), for error messages.
  const char *kindName() const;

private:
  Kind K = Kind::Null;
  bool Bool = false;
  bool IsInt = false;
  int64_t Int = 0;
  double Num = 0;
  std::string Str;
  // shared_ptr keeps Value copyable with an incomplete element type.
  std::shared_ptr<Array> Arr;
  std::shared_ptr<Object> Obj;
};

/// Parses \p Text as one JSON document. Errors read
/// "line L, column C: <what was expected>".
Expected<Value> parse(std::string_view Text);

/// Serializes \p V. With \p Indent > 0 objects and arrays are spread over
/// lines (arrays of scalars stay on one line); 0 gives the compact form.
/// Non-finite numbers, which JSON cannot express, are written as null.
std::string write(const Value &V, unsigned Indent = 2);

/// Reads and parses the file at \p Path; errors are prefixed with the path.
Expected<Value> readFile(const std::string &Path);

/// Writes \p V to \p Path atomically (temporary file + rename).
Error writeFile(const std::string &Path, const Value &V);

} // namespace json
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_JSON_H
