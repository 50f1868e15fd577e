# lit configuration for Spectral: FileCheck tests of IR and tool output.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Spectral"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.spectral_obj_root)

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["spectral-check", "spectral-compile", "spectral-opt", "spectral-run",
     "spectral-garble-cache-payloads"],
    [config.spectral_tools_dir],
)

# The tools compile kernels: into the build tree's test cache, never the
# user's own (tests/CMakeLists.txt gives the GoogleTest programs the same).
config.environment["SPECTRAL_CACHE_DIR"] = config.spectral_test_cache

# %limit_memory caps a command's address space at 4 GiB (`ulimit -v`). A
# sanitized build (SPECTRAL_SANITIZE) cannot run under it (ASan reserves
# terabytes of address space for its shadow): there it caps nothing, and a
# test that needs the cap to fail says UNSUPPORTED: asan.
if "address" in getattr(config, "spectral_sanitize", ""):
    config.available_features.add("asan")
    config.substitutions.append(("%limit_memory", "true"))
else:
    config.substitutions.append(("%limit_memory", "ulimit -v 4194304"))
