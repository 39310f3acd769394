//===- BuiltinsTest.cpp - The builtin table -------------------------------===//
//
// Part of tilec. The table of Builtins.def: names resolve to their entries,
// the enum and the table agree, misspellings get a suggestion, and the
// language reference documents every builtin.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Builtins.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <set>

using namespace tile::frontend;

namespace {

TEST(Builtins, NamesResolveToTheirEntries) {
  std::set<std::string> seen;
  for (const BuiltinInfo &info : allBuiltins()) {
    EXPECT_EQ(&builtinInfo(info.id), &info) << info.signature.str();
    EXPECT_FALSE(info.signature.empty());
    if (info.name.empty())
      continue;
    EXPECT_TRUE(seen.insert(info.name.str()).second)
        << "duplicate name " << info.name.str();
    EXPECT_EQ(lookupBuiltin(info.name), info.id) << info.name.str();
    EXPECT_TRUE(info.signature.starts_with(info.name)) << info.name.str();
  }
  EXPECT_GT(seen.size(), 30u);
  EXPECT_EQ(lookupBuiltin("foo"), Builtin::None);
  EXPECT_EQ(lookupBuiltin(""), Builtin::None);
  // Forms sema resolves calls to have no name of their own.
  EXPECT_TRUE(builtinInfo(Builtin::ReduceMax).name.empty());
}

TEST(Builtins, FlagsOfTheRulesOutsideTheCheckers) {
  // Grid expressions may call cdiv, min and max, nothing else.
  std::set<std::string> grid;
  for (const BuiltinInfo &info : allBuiltins())
    if (info.has(BuiltinFlags::Grid))
      grid.insert(info.name.str());
  EXPECT_EQ(grid, (std::set<std::string>{"cdiv", "max", "min"}));
  EXPECT_TRUE(builtinInfo(Builtin::ProgramId).has(BuiltinFlags::Uniform));
  EXPECT_FALSE(builtinInfo(Builtin::Load).has(BuiltinFlags::Uniform));
  EXPECT_TRUE(builtinInfo(Builtin::Layout).has(BuiltinFlags::RawArgs));
}

TEST(Builtins, SuggestsTheClosestName) {
  EXPECT_EQ(suggestBuiltin("maximun"), "maximum");
  EXPECT_EQ(suggestBuiltin("copy_asnyc"), "copy_async");
  EXPECT_EQ(suggestBuiltin("atomic_ad"), "atomic_add");
  EXPECT_EQ(suggestBuiltin("stor"), "store");
  // Nothing near: no suggestion; short names need a close match.
  EXPECT_EQ(suggestBuiltin("foo"), "");
  EXPECT_EQ(suggestBuiltin("matmul"), "");
  EXPECT_EQ(suggestBuiltin("ab"), "abs");
}

TEST(Builtins, TheLanguageReferenceListsEveryBuiltin) {
  auto buffer =
      llvm::MemoryBuffer::getFile(TILE_SOURCE_DIR "/docs/Language.md");
  ASSERT_TRUE(bool(buffer)) << "docs/Language.md not found";
  llvm::StringRef text = (*buffer)->getBuffer();
  size_t begin = text.find("### 6.2 Builtins");
  ASSERT_NE(begin, llvm::StringRef::npos);
  llvm::StringRef section =
      text.substr(begin, text.find("\n### ", begin + 1) - begin);
  for (const BuiltinInfo &info : allBuiltins()) {
    if (info.name.empty())
      continue;
    // `name(` in the table, or the name in a list of unary functions.
    bool listed = section.contains(("`" + info.name + "(").str()) ||
                  section.contains((" " + info.name + " ").str()) ||
                  section.contains(("`" + info.name + " ").str()) ||
                  section.contains((" " + info.name + "`").str()) ||
                  section.contains(("`" + info.name + "`").str());
    EXPECT_TRUE(listed) << info.name.str()
                        << " is not in docs/Language.md, 6.2 Builtins";
  }
}

} // namespace
