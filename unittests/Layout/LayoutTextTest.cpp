//===- LayoutTextTest.cpp - Printing and parsing layouts ------------------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/DistributedLayout.h"

#include "gtest/gtest.h"

#include <random>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;

DL parseOrDie(llvm::StringRef text) {
  auto l = DL::parse(text);
  if (!l) {
    ADD_FAILURE() << "parse failed: " << toString(l.takeError());
    return DL();
  }
  return *l;
}

std::string parseError(llvm::StringRef text) {
  auto l = DL::parse(text);
  if (l) {
    ADD_FAILURE() << "expected a parse error for '" << text.str() << "'";
    return "";
  }
  return toString(l.takeError());
}

TEST(LayoutText, ParsesTheGeneratingTextOfEverySmallProduct) {
  for (const Sample &s : products(primitives({1, 2, 3}, {2, 3}), 3, 72)) {
    DL parsed = parseOrDie(s.text);
    ASSERT_EQ(tableOf(parsed), s.table) << s.text;
    // print -> parse is the identity, and printing is canonical.
    std::string printed = s.layout.str();
    DL reparsed = parseOrDie(printed);
    ASSERT_EQ(reparsed, s.layout) << s.text << " printed as " << printed;
    ASSERT_EQ(reparsed.str(), printed);
  }
}

TEST(LayoutText, PrintsReadableProducts) {
  DL mmaC = DL::local({2, 1}) * DL::spatial({8, 4}) * DL::local({1, 2});
  EXPECT_EQ(mmaC.str(), "local(2,1) * spatial(8,4) * local(1,2)");
  DL mmaA = DL::columnLocal({2, 2}) * DL::spatial({8, 4}) * DL::local({1, 2});
  EXPECT_EQ(mmaA.str(), "column_local(2,2) * spatial(8,4) * local(1,2)");
  // Adjacent compatible factors merge.
  EXPECT_EQ((DL::local({2, 1}) * DL::local({2, 1})).str(), "local(4,1)");
  EXPECT_EQ((DL::spatial({4, 2}) * DL::replicate(2)).str(),
            "spatial(4,2) * replicate(2)");
  EXPECT_EQ(DL::spatial({1, 1}).str(), "local(1,1)");
  EXPECT_EQ(DL().str(), "local()");
  EXPECT_EQ(DL::replicate(4).str(), "replicate(4) * local()");
  auto reduced = DL::spatial({4, 8}).reduce(1, true);
  ASSERT_TRUE(static_cast<bool>(reduced));
  EXPECT_EQ(reduced->str(), "spatial(4,1) * replicate(8)");
  EXPECT_EQ(parseOrDie(reduced->str()), *reduced);
}

TEST(LayoutText, GeneralFormForNonProducts) {
  // Thread digits in the opposite order of the coordinate digits: no
  // product of primitives expresses this.
  auto l = DL::columnSpatial({4, 8}).reshape({32});
  ASSERT_TRUE(static_cast<bool>(l));
  std::string text = l->str();
  EXPECT_EQ(text, "modes(dims=[[4,8]], spatial=[1,0], local=[])");
  DL back = parseOrDie(text);
  EXPECT_EQ(back, *l);
  for (int64_t t = 0; t < 32; ++t)
    EXPECT_EQ(back.apply(t, 0)[0], (t % 4) * 8 + t / 4);
  // The general form composes with primitives.
  DL prod = parseOrDie("modes(dims=[[2],[]], spatial=[r2,0], local=[]) * "
                       "local(1,2)");
  EXPECT_EQ(prod, DL::replicate(2) * DL::spatial({2, 1}) * DL::local({1, 2}));
  EXPECT_EQ(parseOrDie(" spatial ( 2 , 3 )*local(1,2) "),
            DL::spatial({2, 3}) * DL::local({1, 2}));
}

TEST(LayoutText, ErrorsSayWhereAndWhat) {
  std::string e = parseError("local(2,1) * spatil(8,4)");
  EXPECT_NE(e.find("position 13"), std::string::npos) << e;
  EXPECT_NE(e.find("a layout primitive"), std::string::npos) << e;
  EXPECT_NE(e.find("'spatil(8,4)'"), std::string::npos) << e;

  e = parseError("local(2,1");
  EXPECT_NE(e.find("position 9"), std::string::npos) << e;
  EXPECT_NE(e.find("')'"), std::string::npos) << e;
  EXPECT_NE(e.find("end of text"), std::string::npos) << e;

  e = parseError("local(2,0)");
  EXPECT_NE(e.find("position 8"), std::string::npos) << e;
  EXPECT_NE(e.find(">= 1"), std::string::npos) << e;

  e = parseError("local(2) local(2)");
  EXPECT_NE(e.find("'*' or end of text"), std::string::npos) << e;

  e = parseError("");
  EXPECT_NE(e.find("position 0"), std::string::npos) << e;

  e = parseError("replicate(2,2)");
  EXPECT_NE(e.find("')'"), std::string::npos) << e;

  e = parseError("spatial(99999999999)");
  EXPECT_NE(e.find("2^30"), std::string::npos) << e;

  e = parseError("local(65536,65536)");
  EXPECT_NE(e.find("2^30"), std::string::npos) << e;

  e = parseError("spatial(32768) * spatial(65536)");
  EXPECT_NE(e.find("2^30"), std::string::npos) << e;

  e = parseError("modes(dims=[[4]], spatial=[0], local=[0])");
  EXPECT_NE(e.find("exactly once"), std::string::npos) << e;

  e = parseError("modes(dims=[[4]], local=[0])");
  EXPECT_NE(e.find("expected 'spatial'"), std::string::npos) << e;

  e = parseError("modes(dims=[[4]], spatial=[], local=[r2])");
  EXPECT_NE(e.find("an integer"), std::string::npos) << e;
}

TEST(LayoutText, MangledTextNeverCrashes) {
  // Random edits of valid texts either parse (and then print back to the
  // same layout) or fail with a positioned message.
  std::vector<std::string> seeds = {
      "local(2,1) * spatial(8,4) * local(1,2)",
      "column_local(2,2) * column_spatial(4,8) * replicate(2)",
      "modes(dims=[[4,8],[2]], spatial=[1,r2,0], local=[2])"};
  const std::string alphabet = "0123456789(),*[]=r lospatialmdex_";
  std::mt19937 rng(13);
  int parsed = 0, failed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = seeds[rng() % seeds.size()];
    for (int e = 1 + rng() % 3; e > 0; --e) {
      size_t pos = rng() % (text.size() + 1);
      switch (rng() % 3) {
      case 0:
        text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
        break;
      case 1:
        if (pos < text.size())
          text.erase(pos, 1);
        break;
      default:
        if (pos < text.size())
          text[pos] = alphabet[rng() % alphabet.size()];
        break;
      }
    }
    auto l = DL::parse(text);
    if (!l) {
      ++failed;
      std::string msg = toString(l.takeError());
      ASSERT_NE(msg.find("position"), std::string::npos) << msg;
      continue;
    }
    ++parsed;
    auto again = DL::parse(l->str());
    ASSERT_TRUE(static_cast<bool>(again)) << text << " -> " << l->str();
    ASSERT_EQ(*again, *l);
  }
  // Both outcomes are exercised.
  EXPECT_GT(parsed, 500);
  EXPECT_GT(failed, 5000);
}

} // namespace
