# Helpers shared by every folder.

# tile_add_library(NAME SOURCES... [LINK lib...] [DEPENDS target...])
# A static library of the project; links MLIR/LLVM only when asked.
function(tile_add_library name)
  cmake_parse_arguments(ARG "" "" "LINK;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()

# tile_add_unittest(NAME SOURCES... [LINK lib...] [LABELS label...])
# A GoogleTest binary registered with ctest through gtest_discover_tests.
function(tile_add_unittest name)
  cmake_parse_arguments(ARG "" "" "LINK;LABELS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest GTest::gtest_main)
  set(labels unit)
  if(ARG_LABELS)
    set(labels ${ARG_LABELS})
  endif()
  include(GoogleTest)
  gtest_discover_tests(${name} PROPERTIES LABELS "${labels}"
                       DISCOVERY_TIMEOUT 60)
endfunction()

# tile_missing_test_tool(MODE MESSAGE...)
# Reports a missing test tool: message(MODE ...) normally; under CI
# (TILE_CI, set from CI=true in the top-level CMakeLists.txt) a FATAL_ERROR,
# so that CI never passes with part of the suite left out.
function(tile_missing_test_tool mode)
  string(JOIN "" text ${ARGN})
  if(TILE_CI AND TILE_BUILD_TESTS)
    message(FATAL_ERROR "${text}\n(CI=true: CI runs every test, so every test "
                        "tool is required; scripts/install-deps.sh installs them)")
  else()
    message(${mode} "${text}")
  endif()
endfunction()
