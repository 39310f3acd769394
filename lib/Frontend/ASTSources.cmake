# The sources of TileFrontendAST (lexer, parser, AST, sema), relative to
# this folder: one list for the library and the separately built fuzzer
# (fuzz/CMakeLists.txt).
set(TILE_FRONTEND_AST_SOURCES
  Builtins.cpp
  Check.cpp
  Diagnostics.cpp
  KernelInfo.cpp
  Lexer.cpp
  Parser.cpp
  Sema.cpp
  SemaBuiltins.cpp
  SemaExpr.cpp
  SemaMemory.cpp
  SemaStmt.cpp
  Types.cpp)
