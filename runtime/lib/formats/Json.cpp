//===- Json.cpp - A compact JSON value, reader and writer -----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Json.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace tile::rt;
using namespace tile::rt::json;

Value::Value(Array A)
    : K(Kind::Array), Arr(std::make_shared<Array>(std::move(A))) {}
Value::Value(Object O)
    : K(Kind::Object), Obj(std::make_shared<Object>(std::move(O))) {}

const Value *Value::find(std::string_view Key) const {
  if (K != Kind::Object)
    return nullptr;
  for (const auto &[Name, V] : *Obj)
    if (Name == Key)
      return &V;
  return nullptr;
}

Array &Value::getArray() {
  if (Arr.use_count() > 1)
    Arr = std::make_shared<Array>(*Arr); // Copy on write.
  return *Arr;
}

Object &Value::getObject() {
  if (Obj.use_count() > 1)
    Obj = std::make_shared<Object>(*Obj); // Copy on write.
  return *Obj;
}

void Value::set(std::string Key, Value V) {
  if (K != Kind::Object)
    *this = Value(Object{});
  for (auto &[Name, Old] : getObject()) {
    if (Name == Key) {
      Old = std::move(V);
      return;
    }
  }
  Obj->emplace_back(std::move(Key), std::move(V));
}

bool Value::operator==(const Value &B) const {
  const Value &A = *this;
  if (A.K != B.K)
    return false;
  switch (A.K) {
  case Value::Kind::Null:
    return true;
  case Value::Kind::Bool:
    return A.Bool == B.Bool;
  case Value::Kind::Number:
    if (A.IsInt && B.IsInt)
      return A.Int == B.Int;
    return A.Num == B.Num;
  case Value::Kind::String:
    return A.Str == B.Str;
  case Value::Kind::Array:
    return *A.Arr == *B.Arr;
  case Value::Kind::Object:
    if (A.Obj->size() != B.Obj->size())
      return false;
    for (const auto &[Key, V] : *A.Obj) {
      const Value *Other = B.find(Key);
      if (!Other || !(*Other == V))
        return false;
    }
    return true;
  }
  return false;
}

const char *Value::kindName() const {
  switch (K) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "boolean";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {
class Parser {
public:
  explicit Parser(std::string_view Text) : Text(Text) {}

  Expected<Value> parseDocument() {
    Value V;
    if (!parseValue(V, 0))
      return makeError(Err);
    skipSpace();
    if (Pos != Text.size()) {
      fail("unexpected text after the JSON value");
      return makeError(Err);
    }
    return V;
  }

private:
  static constexpr unsigned MaxDepth = 256;
  std::string_view Text;
  size_t Pos = 0;
  std::string Err;

  bool fail(const std::string &What) {
    if (!Err.empty())
      return false;
    unsigned Line = 1, Col = 1;
    for (size_t I = 0; I < Pos && I < Text.size(); ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
    Err = "line " + std::to_string(Line) + ", column " + std::to_string(Col) +
          ": " + What;
    return false;
  }

  void skipSpace() {
    while (Pos < Text.size() && (Text[Pos] == ' ' || Text[Pos] == '\t' ||
                                 Text[Pos] == '\n' || Text[Pos] == '\r'))
      ++Pos;
  }

  bool consumeWord(std::string_view Word) {
    if (Text.substr(Pos, Word.size()) != Word)
      return false;
    Pos += Word.size();
    return true;
  }

  bool parseValue(Value &Out, unsigned Depth) {
    skipSpace();
    if (Pos >= Text.size())
      return fail("unexpected end of input, expected a value");
    if (Depth > MaxDepth)
      return fail("nesting deeper than " + std::to_string(MaxDepth));
    char C = Text[Pos];
    if (C == '{')
      return parseObject(Out, Depth);
    if (C == '[')
      return parseArray(Out, Depth);
    if (C == '"') {
      std::string S;
      if (!parseString(S))
        return false;
      Out = Value(std::move(S));
      return true;
    }
    if (C == '-' || (C >= '0' && C <= '9'))
      return parseNumber(Out);
    if (consumeWord("true")) {
      Out = Value(true);
      return true;
    }
    if (consumeWord("false")) {
      Out = Value(false);
      return true;
    }
    if (consumeWord("null")) {
      Out = Value(nullptr);
      return true;
    }
    return fail(std::string("unexpected character '") + C +
                "', expected a value");
  }

  bool parseObject(Value &Out, unsigned Depth) {
    ++Pos; // '{'
    Object Members;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == '}') {
      ++Pos;
      Out = Value(std::move(Members));
      return true;
    }
    while (true) {
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != '"')
        return fail("expected a string key in object");
      std::string Key;
      size_t KeyStart = Pos;
      if (!parseString(Key))
        return false;
      for (const auto &Member : Members) {
        if (Member.first == Key) {
          Pos = KeyStart;
          return fail("duplicate key \"" + Key + "\"");
        }
      }
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != ':')
        return fail("expected ':' after object key");
      ++Pos;
      Value V;
      if (!parseValue(V, Depth + 1))
        return false;
      Members.emplace_back(std::move(Key), std::move(V));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == '}') {
        ++Pos;
        Out = Value(std::move(Members));
        return true;
      }
      return fail("expected ',' or '}' in object");
    }
  }

  bool parseArray(Value &Out, unsigned Depth) {
    ++Pos; // '['
    Array Elements;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == ']') {
      ++Pos;
      Out = Value(std::move(Elements));
      return true;
    }
    while (true) {
      Value V;
      if (!parseValue(V, Depth + 1))
        return false;
      Elements.push_back(std::move(V));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == ']') {
        ++Pos;
        Out = Value(std::move(Elements));
        return true;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  bool parseHex4(unsigned &Code) {
    if (Pos + 4 > Text.size())
      return fail("truncated \\u escape");
    Code = 0;
    for (int I = 0; I < 4; ++I) {
      char C = Text[Pos++];
      Code <<= 4;
      if (C >= '0' && C <= '9')
        Code |= C - '0';
      else if (C >= 'a' && C <= 'f')
        Code |= C - 'a' + 10;
      else if (C >= 'A' && C <= 'F')
        Code |= C - 'A' + 10;
      else
        return fail("invalid hex digit in \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string &S, unsigned Code) {
    if (Code < 0x80) {
      S += static_cast<char>(Code);
    } else if (Code < 0x800) {
      S += static_cast<char>(0xC0 | (Code >> 6));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    } else if (Code < 0x10000) {
      S += static_cast<char>(0xE0 | (Code >> 12));
      S += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    } else {
      S += static_cast<char>(0xF0 | (Code >> 18));
      S += static_cast<char>(0x80 | ((Code >> 12) & 0x3F));
      S += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    }
  }

  bool parseString(std::string &Out) {
    ++Pos; // '"'
    while (true) {
      if (Pos >= Text.size())
        return fail("unterminated string");
      char C = Text[Pos];
      if (C == '"') {
        ++Pos;
        return true;
      }
      if (static_cast<unsigned char>(C) < 0x20)
        return fail("control character in string (escape it)");
      if (C != '\\') {
        Out += C;
        ++Pos;
        continue;
      }
      ++Pos;
      if (Pos >= Text.size())
        return fail("unterminated string");
      char E = Text[Pos++];
      switch (E) {
      case '"':
      case '\\':
      case '/':
        Out += E;
        break;
      case 'b':
        Out += '\b';
        break;
      case 'f':
        Out += '\f';
        break;
      case 'n':
        Out += '\n';
        break;
      case 'r':
        Out += '\r';
        break;
      case 't':
        Out += '\t';
        break;
      case 'u': {
        unsigned Code;
        if (!parseHex4(Code))
          return false;
        if (Code >= 0xD800 && Code < 0xDC00) {
          unsigned Low;
          if (!consumeWord("\\u") || !parseHex4(Low) || Low < 0xDC00 ||
              Low >= 0xE000)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          Code = 0x10000 + ((Code - 0xD800) << 10) + (Low - 0xDC00);
        } else if (Code >= 0xDC00 && Code < 0xE000) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(Out, Code);
        break;
      }
      default:
        --Pos;
        return fail(std::string("invalid escape '\\") + E + "'");
      }
    }
  }

  bool parseNumber(Value &Out) {
    size_t Start = Pos;
    bool IsInt = true;
    if (Text[Pos] == '-')
      ++Pos;
    auto digits = [&] {
      size_t From = Pos;
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
      return Pos - From;
    };
    size_t IntStart = Pos;
    size_t IntDigits = digits();
    if (IntDigits == 0)
      return fail("expected digits in number");
    if (IntDigits > 1 && Text[IntStart] == '0')
      return fail("leading zeros are not allowed in numbers");
    if (Pos < Text.size() && Text[Pos] == '.') {
      IsInt = false;
      ++Pos;
      if (digits() == 0)
        return fail("expected digits after '.' in number");
    }
    if (Pos < Text.size() && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
      IsInt = false;
      ++Pos;
      if (Pos < Text.size() && (Text[Pos] == '+' || Text[Pos] == '-'))
        ++Pos;
      if (digits() == 0)
        return fail("expected digits in exponent");
    }
    std::string Lexeme(Text.substr(Start, Pos - Start));
    if (IsInt) {
      errno = 0;
      char *End = nullptr;
      long long I = std::strtoll(Lexeme.c_str(), &End, 10);
      if (errno == 0) {
        Out = Value(static_cast<int64_t>(I));
        return true;
      }
    }
    errno = 0;
    double D = std::strtod(Lexeme.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(D)) {
      Pos = Start;
      return fail("number out of range: " + Lexeme);
    }
    Out = Value(D);
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

void writeString(std::string &Out, const std::string &S) {
  Out += '"';
  for (unsigned char C : S) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '\t':
      Out += "\\t";
      break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
        Out += Buf;
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
  Out += '"';
}

void writeNumber(std::string &Out, const Value &V) {
  if (V.isInteger()) {
    Out += std::to_string(V.getInteger());
    return;
  }
  double D = V.getNumber();
  if (!std::isfinite(D)) {
    Out += "null"; // JSON has no inf/nan.
    return;
  }
  // Shortest of %.15g/%.17g that round-trips, with a marker that keeps the
  // value a non-integer on re-reading.
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.15g", D);
  if (std::strtod(Buf, nullptr) != D)
    std::snprintf(Buf, sizeof(Buf), "%.17g", D);
  std::string S = Buf;
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  Out += S;
}

bool isScalar(const Value &V) { return !V.isArray() && !V.isObject(); }

void writeValue(std::string &Out, const Value &V, unsigned Indent,
                unsigned Level) {
  auto newline = [&](unsigned L) {
    if (Indent == 0)
      return;
    Out += '\n';
    Out.append(static_cast<size_t>(Indent) * L, ' ');
  };
  switch (V.kind()) {
  case Value::Kind::Null:
    Out += "null";
    return;
  case Value::Kind::Bool:
    Out += V.getBool() ? "true" : "false";
    return;
  case Value::Kind::Number:
    writeNumber(Out, V);
    return;
  case Value::Kind::String:
    writeString(Out, V.getString());
    return;
  case Value::Kind::Array: {
    const Array &A = V.getArray();
    bool Flat = true;
    for (const Value &E : A)
      Flat &= isScalar(E);
    Out += '[';
    for (size_t I = 0; I < A.size(); ++I) {
      if (I)
        Out += Flat && Indent ? ", " : ",";
      if (!Flat)
        newline(Level + 1);
      writeValue(Out, A[I], Indent, Level + 1);
    }
    if (!Flat && !A.empty())
      newline(Level);
    Out += ']';
    return;
  }
  case Value::Kind::Object: {
    const Object &O = V.getObject();
    Out += '{';
    for (size_t I = 0; I < O.size(); ++I) {
      if (I)
        Out += ',';
      newline(Level + 1);
      writeString(Out, O[I].first);
      Out += Indent ? ": " : ":";
      writeValue(Out, O[I].second, Indent, Level + 1);
    }
    if (!O.empty())
      newline(Level);
    Out += '}';
    return;
  }
  }
}
} // namespace

Expected<Value> json::parse(std::string_view Text) {
  return Parser(Text).parseDocument();
}

std::string json::write(const Value &V, unsigned Indent) {
  std::string Out;
  writeValue(Out, V, Indent, 0);
  return Out;
}

Expected<Value> json::readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return makeError("cannot open " + Path);
  std::stringstream SS;
  SS << In.rdbuf();
  Expected<Value> V = parse(SS.str());
  if (!V)
    return makeError(Path + ": " + V.message());
  return V;
}

Error json::writeFile(const std::string &Path, const Value &V) {
  static std::atomic<unsigned> Counter{0};
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(Counter++);
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    if (!Out)
      return makeError("cannot write " + Tmp);
    Out << write(V) << '\n';
    if (!Out.flush())
      return makeError("cannot write " + Tmp);
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    return makeError("cannot rename " + Tmp + " to " + Path);
  }
  return Error::success();
}
