# lit configuration for mxla's FileCheck tests: HLO files whose RUN lines pipe
# `mxla` output into FileCheck.
import os

import lit.formats

config.name = "mxla"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxla_build_dir, "tests", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]

config.substitutions.append(("%mxla", config.mxla_path))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
