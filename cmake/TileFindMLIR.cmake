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

# One MLIR linking strategy per build: the shared libMLIR.so + libLLVM.so,
# or (TILEC_PORTABLE) the static archives. Never mix them in one binary;
# CMakeLists link ${TILE_MLIR_LIBS} / ${TILE_LLVM_LIBS}, never MLIR or LLVM.
if(TILEC_PORTABLE)
  include(TilePortable)
else()
  set(TILE_MLIR_LIBS MLIR LLVM)
  set(TILE_LLVM_LIBS LLVM)
endif()

set(TILE_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")
find_program(TILE_LIT NAMES lit llvm-lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin)
if(DEFINED LLVM_EXTERNAL_LIT)
  set(TILE_LIT ${LLVM_EXTERNAL_LIT})
endif()
find_program(TILE_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
if(NOT TILE_LIT)
  tile_missing_test_tool(WARNING "tilec: lit not found (apt-get install llvm-22-tools: "
                         "/usr/lib/llvm-22/bin/lit): the lit suite is not registered")
endif()
if(NOT TILE_FILECHECK)
  tile_missing_test_tool(WARNING "tilec: FileCheck not found in ${LLVM_TOOLS_BINARY_DIR} "
                         "(apt-get install llvm-22-tools): the lit suite is not registered")
endif()

# CUDA tools: the CUDA toolkit (/usr/local/cuda, $CUDA_HOME), else the
# prefix where scripts/install-deps.sh puts them from PyPI wheels. tilec
# looks in the same places at run time (findTool, lib/Codegen/Common).
set(TILE_CUDA_TOOLS_PREFIX "/opt/tilec-cuda-tools" CACHE PATH
    "Where scripts/install-deps.sh installs ptxas, nvdisasm and cuobjdump (bin/)")
set(_tile_cuda_hints /usr/local/cuda/bin ENV CUDA_HOME ${TILE_CUDA_TOOLS_PREFIX})
find_program(TILE_PTXAS ptxas HINTS ${_tile_cuda_hints} PATH_SUFFIXES bin)
if(TILE_PTXAS)
  message(STATUS "tilec: ptxas found at ${TILE_PTXAS}")
else()
  tile_missing_test_tool(STATUS "tilec: ptxas not found (install the CUDA toolkit, or "
                         "run scripts/install-deps.sh: it puts ptxas from PyPI's "
                         "nvidia-cuda-nvcc into ${TILE_CUDA_TOOLS_PREFIX}/bin): cubin "
                         "output and ptxas-checked tests are disabled")
endif()
# Disassemblers for tests of the machine code (lit features nvdisasm and
# cuobjdump). nvdisasm is required in CI: test/tilec/sass-report.test holds
# the SASS figures of gemm_wq (scripts/sass-report.py) against regressions.
find_program(TILE_NVDISASM nvdisasm HINTS ${_tile_cuda_hints} PATH_SUFFIXES bin)
find_program(TILE_CUOBJDUMP cuobjdump HINTS ${_tile_cuda_hints} PATH_SUFFIXES bin)
foreach(_tool nvdisasm cuobjdump)
  string(TOUPPER ${_tool} _var)
  if(TILE_${_var})
    message(STATUS "tilec: ${_tool} found at ${TILE_${_var}}")
  elseif(_tool STREQUAL "nvdisasm")
    tile_missing_test_tool(STATUS "tilec: nvdisasm not found (scripts/install-deps.sh "
                           "installs it into ${TILE_CUDA_TOOLS_PREFIX}/bin): the SASS "
                           "regression tests are unsupported")
  else()
    message(STATUS "tilec: ${_tool} not found (scripts/install-deps.sh installs it "
                   "into ${TILE_CUDA_TOOLS_PREFIX}/bin): tests that need it are unsupported")
  endif()
endforeach()
find_program(TILE_LD_LLD NAMES ld.lld ld.lld-22 HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)

