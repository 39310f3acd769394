//===- JsonTest.cpp - Tests of the runtime's JSON reader/writer -----------===//

#include "tile/runtime/Json.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <fstream>

using namespace tile::rt;
using json::Value;

namespace {

std::string parseError(const std::string &Text) {
  Expected<Value> V = json::parse(Text);
  EXPECT_FALSE(V) << "parsed: " << Text;
  return V ? "" : V.message();
}

TEST(JsonTest, ParsesScalarsAndStructure) {
  Expected<Value> V = json::parse(
      R"({"a": 1, "b": -2.5e3, "c": [true, false, null], "d": {"e": "x"}})");
  ASSERT_TRUE(V) << V.message();
  ASSERT_TRUE(V->isObject());
  EXPECT_TRUE(V->find("a")->isInteger());
  EXPECT_EQ(V->find("a")->getInteger(), 1);
  EXPECT_FALSE(V->find("b")->isInteger());
  EXPECT_DOUBLE_EQ(V->find("b")->getNumber(), -2500.0);
  const json::Array &C = V->find("c")->getArray();
  ASSERT_EQ(C.size(), 3u);
  EXPECT_TRUE(C[0].getBool());
  EXPECT_FALSE(C[1].getBool());
  EXPECT_TRUE(C[2].isNull());
  EXPECT_EQ(V->find("d")->find("e")->getString(), "x");
  EXPECT_EQ(V->find("missing"), nullptr);
  // Key order is preserved.
  EXPECT_EQ(V->getObject()[0].first, "a");
  EXPECT_EQ(V->getObject()[3].first, "d");
}

TEST(JsonTest, LargeIntegersStayExact) {
  Expected<Value> V = json::parse("[9007199254740993, -9223372036854775808]");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->getArray()[0].getInteger(), 9007199254740993LL);
  EXPECT_EQ(V->getArray()[1].getInteger(), INT64_MIN);
  // Beyond int64 the value becomes a double.
  Expected<Value> Big = json::parse("18446744073709551616");
  ASSERT_TRUE(Big);
  EXPECT_FALSE(Big->isInteger());
  EXPECT_DOUBLE_EQ(Big->getNumber(), 18446744073709551616.0);
}

TEST(JsonTest, StringEscapes) {
  Expected<Value> V =
      json::parse(R"(["a\"b\\c\/d\n\t", "\u00e9\u20ac", "\ud83d\ude00"])");
  ASSERT_TRUE(V) << V.message();
  EXPECT_EQ(V->getArray()[0].getString(), "a\"b\\c/d\n\t");
  EXPECT_EQ(V->getArray()[1].getString(), "\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(V->getArray()[2].getString(), "\xF0\x9F\x98\x80");
}

TEST(JsonTest, RoundTrip) {
  Value Root = json::Object{};
  Root.set("name", "gemm \"wq\"\n");
  Root.set("int", int64_t(-123456789012345));
  Root.set("pi", 3.141592653589793);
  Root.set("third", 1.0 / 3.0);
  Root.set("whole", 2.0);
  Root.set("list", json::Array{1, "two", nullptr, false, json::Array{},
                               json::Object{}});
  Value Nested = json::Object{};
  Nested.set("k", json::Array{json::Object{{"x", 1}}});
  Root.set("nested", Nested);
  for (unsigned Indent : {0u, 2u}) {
    std::string Text = json::write(Root, Indent);
    Expected<Value> Back = json::parse(Text);
    ASSERT_TRUE(Back) << Back.message() << "\n" << Text;
    EXPECT_EQ(*Back, Root) << Text;
    // 2.0 stays a non-integer number.
    EXPECT_FALSE(Back->find("whole")->isInteger());
    EXPECT_EQ(Back->find("third")->getNumber(), 1.0 / 3.0);
  }
  EXPECT_EQ(json::write(Value(json::Array{1, 2}), 0), "[1,2]");
  EXPECT_EQ(json::write(Value(json::Array{1LL, 2UL, short(-3), 4.5f}), 0),
            "[1,2,-3,4.5]");
  EXPECT_EQ(json::write(Value(json::Array{1.0 / 0.0}), 0), "[null]");
  EXPECT_EQ(json::write(Value(json::Object{{"a", 1}}), 2), "{\n  \"a\": 1\n}");
}

TEST(JsonTest, ErrorsNameLineAndColumn) {
  EXPECT_EQ(parseError("{\"a\": 1,\n  \"b\" 2}"),
            "line 2, column 7: expected ':' after object key");
  EXPECT_EQ(parseError("[1, 2"),
            "line 1, column 6: expected ',' or ']' in array");
  EXPECT_EQ(parseError("[1,]"), "line 1, column 4: unexpected character ']', "
                                "expected a value");
  EXPECT_EQ(parseError("{\"a\": 1, \"a\": 2}"),
            "line 1, column 10: duplicate key \"a\"");
  EXPECT_EQ(parseError("\"abc"), "line 1, column 5: unterminated string");
  EXPECT_EQ(parseError("01"),
            "line 1, column 3: leading zeros are not allowed in numbers");
  EXPECT_EQ(parseError("1 2"), "line 1, column 3: unexpected text after the "
                               "JSON value");
  EXPECT_EQ(parseError(""), "line 1, column 1: unexpected end of input, "
                            "expected a value");
  EXPECT_EQ(parseError("\"\\x\""), "line 1, column 3: invalid escape '\\x'");
  EXPECT_EQ(parseError("\"\\ud800\""),
            "line 1, column 8: unpaired UTF-16 surrogate in \\u escape");
  EXPECT_EQ(parseError("1e999"),
            "line 1, column 1: number out of range: 1e999");
  EXPECT_EQ(parseError("tru"), "line 1, column 1: unexpected character 't', "
                               "expected a value");
}

TEST(JsonTest, DeepNestingIsAnErrorNotACrash) {
  std::string Deep(100000, '[');
  std::string Msg = parseError(Deep);
  EXPECT_NE(Msg.find("nesting deeper than 256"), std::string::npos) << Msg;
}

TEST(JsonTest, CopiesAreIndependent) {
  Value A = json::Object{{"x", 1}};
  Value B = A;
  B.set("x", 2);
  B.getObject().emplace_back("y", 3);
  EXPECT_EQ(A.find("x")->getInteger(), 1);
  EXPECT_EQ(A.find("y"), nullptr);
  EXPECT_EQ(B.find("x")->getInteger(), 2);
}

TEST(JsonTest, Files) {
  std::string Path = testing::TempDir() + "/tile_json_test.json";
  Value V = json::Object{{"k", json::Array{1.5, "s"}}};
  ASSERT_FALSE(json::writeFile(Path, V));
  Expected<Value> Back = json::readFile(Path);
  ASSERT_TRUE(Back) << Back.message();
  EXPECT_EQ(*Back, V);
  std::ofstream(Path) << "{\"k\": }";
  Expected<Value> Bad = json::readFile(Path);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.message(), Path + ": line 1, column 7: unexpected character "
                                  "'}', expected a value");
  std::remove(Path.c_str());
  Expected<Value> Missing = json::readFile(Path);
  ASSERT_FALSE(Missing);
  EXPECT_EQ(Missing.message(), "cannot open " + Path);
}

} // namespace
