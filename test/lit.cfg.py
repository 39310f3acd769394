# -*- Python -*-
# lit configuration of the tilec test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "malformed-corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)

# The example programs of the repository (examples/*.tile, the reference
# kernels included).
config.substitutions.append(
    ("%examples", os.path.join(config.tile_src_root, "examples")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The repository's scripts (scripts/sass-report.py).
config.substitutions.append(
    ("%scripts", os.path.join(config.tile_src_root, "scripts")))

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = [
    "tile-opt",
    ToolSubst("tilec", unresolved="ignore"),
    ToolSubst("tile-run", unresolved="ignore"),
    ToolSubst("llvm-objdump", unresolved="ignore"),
    ToolSubst("llvm-nm", unresolved="ignore"),
    ToolSubst("llvm-readobj", unresolved="ignore"),
    ToolSubst("llvm-mc", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Features that tests REQUIRE. A test that needs a missing tool is reported
# UNSUPPORTED by lit (visible), never silently passed.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
# The CUDA disassemblers, found like ptxas (cmake/TileFindMLIR.cmake: the
# CUDA toolkit, or /opt/tilec-cuda-tools/bin from scripts/install-deps.sh).
for tool in ("nvdisasm", "cuobjdump"):
    path = getattr(config, tool, "")
    if path and os.path.exists(path):
        config.available_features.add(tool)
        config.substitutions.append(("%" + tool, path))
if config.ld_lld and os.path.exists(config.ld_lld):
    config.available_features.add("ld.lld")
if os.path.exists(os.path.join(config.tile_tools_dir, "tilec")):
    config.available_features.add("tilec")


def _has_cuda_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, timeout=20,
                             text=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if _has_cuda_gpu():
    config.available_features.add("cuda-gpu")
