# lit configuration for mxla's FileCheck tests: HLO files whose RUN lines pipe
# `mxla` output into FileCheck.
import os
import sys

import lit.formats

config.name = "mxla"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxla_build_dir, "tests", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.substitutions.append(("%mxla", config.mxla_path))
# The Python running lit; tests that read mxla's files with NumPy say
# REQUIRES: numpy.
config.substitutions.append(("%python", sys.executable))
try:
    import numpy  # noqa: F401

    config.available_features.add("numpy")
except ImportError:
    pass
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])


# The host's widest vector registers, read independently of LLVM from the
# CPU flags, so tests can check that the JIT uses the host's width:
# %vector_bytes (64 with AVX-512), %f32_lanes and %vector_reg (zmm/ymm/xmm).
def host_vector_bytes():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    if "avx512f" in flags:
                        return 64
                    if "avx" in flags:
                        return 32
                    return 16
    except OSError:
        pass
    return 16


vector_bytes = host_vector_bytes()
config.substitutions.append(("%vector_bytes", str(vector_bytes)))
config.substitutions.append(("%f32_lanes", str(vector_bytes // 4)))
config.substitutions.append(
    ("%vector_reg", {64: "zmm", 32: "ymm", 16: "xmm"}[vector_bytes]))
