# Locate LLVM/MLIR 22. Debian installs them under /usr/lib/llvm-22; any other
# install is found through MLIR_DIR / LLVM_DIR or CMAKE_PREFIX_PATH.
set(_tile_llvm_hints /usr/lib/llvm-22/lib/cmake/mlir /usr/lib/llvm-22/lib/cmake/llvm)
find_package(MLIR CONFIG HINTS ${_tile_llvm_hints})
if(NOT MLIR_FOUND)
  message(FATAL_ERROR
    "tilec: MLIR 22 not found. On Debian 12: apt-get install llvm-22-dev "
    "libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22; elsewhere "
    "pass -DMLIR_DIR=<prefix>/lib/cmake/mlir (or -DTILE_RUNTIME_ONLY=ON to "
    "build only the runtime).")
endif()
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "tilec: needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION} at ${MLIR_DIR}")
endif()
message(STATUS "tilec: MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>)
endif()

# One MLIR linking strategy: the shared libMLIR.so + libLLVM.so. Never mix
# them with the static libMLIR*.a archives in one binary.
set(TILE_MLIR_LIBS MLIR LLVM)

set(TILE_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")
find_program(TILE_LIT NAMES lit llvm-lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin)
if(DEFINED LLVM_EXTERNAL_LIT)
  set(TILE_LIT ${LLVM_EXTERNAL_LIT})
endif()
find_program(TILE_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
if(NOT TILE_LIT OR NOT TILE_FILECHECK)
  message(WARNING "tilec: lit or FileCheck not found (apt-get install llvm-22-tools): "
                  "the lit suite is not registered")
endif()
find_program(TILE_PTXAS ptxas HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
if(TILE_PTXAS)
  message(STATUS "tilec: ptxas found at ${TILE_PTXAS}")
else()
  message(STATUS "tilec: ptxas not found: cubin output and ptxas-checked tests are disabled")
endif()
find_program(TILE_LD_LLD NAMES ld.lld ld.lld-22 HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)

