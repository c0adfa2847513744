# lit configuration for dlc: IR tests, error tests, codegen and end-to-end.
import os

import lit.formats

config.name = "dlc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlc_obj_root, "test")
config.excludes = ["unit", "lit.cfg.py", "CMakeLists.txt", "make_odd_names.py",
                   "compare_with_ort.py", "check_c_latency.py", "gradcheck.py", "check_export.py", "check_mem_budget.py", "make_dropout_model.py", "run_node_tests.py", "op_table.py", "expected_passing.txt"]

models = os.path.join(config.dlc_obj_root, "models")
config.substitutions += [
    ("%dlc-opt", os.path.join(config.dlc_tools_dir, "dlc-opt", "dlc-opt")),
    ("%dlc", os.path.join(config.dlc_tools_dir, "dlc", "dlc")),
    ("%models", models),
    ("%python", config.python),
    ("%src", config.dlc_src_root),
    ("%obj", config.dlc_obj_root),
    ("%shared", os.path.join(os.path.dirname(config.dlc_src_root), "shared")),
]
# Pin LLVM 19's FileCheck/not: the unversioned tools on PATH are LLVM 14.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

# The CUDA back end's cubin tests need ptxas (a CUDA toolkit), nothing else.
for toolkit in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
    ptxas = os.path.join(toolkit, "bin", "ptxas")
    if toolkit and os.access(ptxas, os.X_OK):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))
        config.environment["CUDA_HOME"] = toolkit
        break
