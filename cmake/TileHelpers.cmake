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
