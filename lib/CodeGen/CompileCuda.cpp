//===- CompileCuda.cpp - the CUDA back end's artifacts --------------------===//
//
// dlc module -> buildCudaPipeline (passes/Pipelines.cpp) -> one gpu.binary
// of PTX and an entry that is only gpu.launch_func ops over its arguments
// (inputs, outputs, arena, weights). From that:
//   --emit=ptx / --emit=cubin: the kernels alone, plus OUT.json with the
//     launch plan and the memory plan, for users with their own loader;
//   --emit=lib: a host library (the runtime, the launch list as tables, the
//     cubin and the weights embedded) with the CPU build's C API.
// The cubin comes from ptxas (CUDA toolkit: $CUDA_HOME, /usr/local/cuda or
// PATH); without one the library embeds the PTX for the driver to JIT.
//
//===----------------------------------------------------------------------===//
#include "Artifact.h"
#include "dlc/Compile.h"
#include "dlc/DType.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace dlc::codegen;

namespace {
/// One kernel launch of the plan.
struct Launch {
  std::string kernel;
  int64_t grid[3], block[3];
  std::vector<std::pair<std::string, int>> args; ///< (input|output|arena|weights, index)
};

struct CudaProgram {
  std::string ptx;
  std::vector<Launch> launches;
  int64_t arenaBytes = 0, lowerBound = 0, buffers = 0, weightsBytes = 0;
  std::vector<char> weights;
};

std::string cudaToolkit() {
  for (const char *env : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *p = getenv(env); p && *p && llvm::sys::fs::is_directory(p))
      return p;
  return llvm::sys::fs::is_directory("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

std::string findPtxas() {
  std::string toolkit = cudaToolkit();
  if (!toolkit.empty() && llvm::sys::fs::can_execute(toolkit + "/bin/ptxas"))
    return toolkit + "/bin/ptxas";
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  return "";
}

/// The bytes of a constant global, as laid out in memory.
bool globalBytes(memref::GlobalOp g, std::vector<char> &out) {
  Attribute value = g.getInitialValue().value_or(Attribute());
  MemRefType t = g.getType();
  int64_t elemBytes = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  int64_t bytes = t.getNumElements() * elemBytes;
  if (auto r = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = r.getRawHandle().getBlob();
    if (!blob || (int64_t)blob->getData().size() != bytes)
      return false;
    out.assign(blob->getData().begin(), blob->getData().end());
    return true;
  }
  auto d = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!d)
    return false;
  out.assign(bytes, 0);
  if (d.getElementType().isInteger(1)) { // bit-packed in the attribute
    int64_t i = 0;
    for (bool b : d.getValues<bool>())
      out[i++] = b;
  } else if (d.isSplat()) {
    ArrayRef<char> one = d.getRawData();
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      std::copy(one.begin(), one.begin() + elemBytes, out.begin() + i * elemBytes);
  } else {
    ArrayRef<char> raw = d.getRawData();
    if ((int64_t)raw.size() != bytes)
      return false;
    std::copy(raw.begin(), raw.end(), out.begin());
  }
  return true;
}

/// Runs the CUDA pipeline and reads the kernels, the launch list and the
/// weights off the result.
bool lowerForCuda(ModuleOp module, const dlc::ImportedModel &model,
                  const dlc::CompileOptions &opts, CudaProgram &out, std::string &error) {
  MLIRContext *ctx = module.getContext();
  FirstDiagnostic first(ctx);
  PassManager pm(ctx);
  if (opts.printIrAfterAll) {
    ctx->disableMultithreading();
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  dlc::buildCudaPipeline(pm, {opts.target.cpu, 256, cudaToolkit()});
  if (failed(pm.run(module))) {
    error = "compilation failed: " + (first.text.empty() ? "pass pipeline failed" : first.text);
    return false;
  }
  auto main = module.lookupSymbol<func::FuncOp>("main");
  auto binary = module.lookupSymbol<gpu::BinaryOp>("dlc_kernels");
  size_t ni = model.inputs.size(), no = model.outputs.size();
  if (!main || main.getNumArguments() != ni + no + 2) {
    error = "internal error: the CUDA pipeline's entry does not take inputs, outputs, arena "
            "and weights";
    return false;
  }
  auto intAttr = [&](const char *name) -> int64_t {
    auto a = main->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  out.arenaBytes = intAttr("dlc.arena_bytes");
  out.lowerBound = intAttr("dlc.arena_lower_bound");
  out.buffers = intAttr("dlc.arena_buffers");
  out.weightsBytes = intAttr("dlc.weights_bytes");
  if (binary) {
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    out.ptx = object.getObject().getValue().str();
    while (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  }
  for (Operation &op : main.getBody().front()) {
    if (isa<func::ReturnOp, arith::ConstantOp>(op))
      continue;
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch) {
      error = "internal error: host op '" + op.getName().getStringRef().str() +
              "' left in the CUDA entry";
      return false;
    }
    Launch l;
    l.kernel = launch.getKernelName().str();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues(),
                    block = launch.getBlockSizeOperandValues();
    Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i) {
      std::optional<int64_t> v = getConstantIntValue(dims[i]);
      if (!v) {
        error = "internal error: kernel " + l.kernel + " has a dynamic launch size";
        return false;
      }
      (i < 3 ? l.grid[i] : l.block[i - 3]) = *v;
    }
    for (Value a : launch.getKernelOperands()) {
      auto arg = dyn_cast<BlockArgument>(a);
      if (!arg || arg.getOwner() != &main.getBody().front()) {
        error = "internal error: kernel " + l.kernel + " takes a value that is not a buffer";
        return false;
      }
      size_t i = arg.getArgNumber();
      l.args.push_back(i < ni        ? std::make_pair(std::string("input"), (int)i)
                       : i < ni + no ? std::make_pair(std::string("output"), (int)(i - ni))
                       : i == ni + no ? std::make_pair(std::string("arena"), 0)
                                      : std::make_pair(std::string("weights"), 0));
    }
    out.launches.push_back(std::move(l));
  }
  out.weights.assign(out.weightsBytes, 0);
  for (auto g : module.getOps<memref::GlobalOp>()) {
    auto offset = g->getAttrOfType<IntegerAttr>("dlc.weights_offset");
    if (!offset)
      continue;
    std::vector<char> bytes;
    if (!globalBytes(g, bytes)) {
      error = "cannot lay out the weight '" + g.getSymName().str() + "' for the GPU";
      return false;
    }
    std::copy(bytes.begin(), bytes.end(), out.weights.begin() + offset.getInt());
  }
  return true;
}

nlohmann::json planJson(const CudaProgram &p, const dlc::CompileOptions &opts) {
  nlohmann::json launches = nlohmann::json::array();
  for (const Launch &l : p.launches) {
    nlohmann::json args = nlohmann::json::array();
    for (auto &[kind, index] : l.args)
      args.push_back({{"buffer", kind}, {"index", index}});
    launches.push_back({{"kernel", l.kernel},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"args", args}});
  }
  return {{"target", opts.target.name},
          {"chip", opts.target.cpu},
          {"memory_plan",
           {{"arena_bytes", p.arenaBytes},
            {"lower_bound_bytes", p.lowerBound},
            {"buffers", p.buffers},
            {"weights_bytes", p.weightsBytes},
            {"alignment", 64}}},
          {"launches", launches}};
}

/// ptxas: PTX -> cubin for the target chip.
bool assemble(const std::string &dir, const std::string &ptx, const std::string &chip,
              std::string &cubin, std::string &error) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    error = "no ptxas found (set CUDA_HOME to a CUDA toolkit)";
    return false;
  }
  std::string in = dir + "/kernels.ptx", outPath = dir + "/kernels.cubin";
  if (!writeFileAtomically(in, ptx, error))
    return false;
  std::string arch = "-arch=" + chip;
  std::vector<llvm::StringRef> args{ptxas, arch, "-O3", in, "-o", outPath};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0, &execError);
  auto buf = llvm::MemoryBuffer::getFile(outPath);
  if (rc != 0 || !buf) {
    error = "ptxas failed on the generated PTX (exit " + std::to_string(rc) + ")";
    return false;
  }
  cubin = (*buf)->getBuffer().str();
  return true;
}

std::string incbin(const std::string &symbol, const std::string &path, size_t bytes,
                   bool nulTerminate) {
  std::string s = "\t.section .rodata." + symbol + ",\"a\",@progbits\n\t.p2align 8\n\t.globl " +
                  symbol + "\n\t.hidden " + symbol + "\n" + symbol + ":\n";
  if (bytes)
    s += "\t.incbin \"" + path + "\"\n";
  if (nulTerminate || !bytes)
    s += "\t.byte 0\n";
  return s + "\t.section .note.GNU-stack,\"\",@progbits\n";
}

std::string gpuTables(const CudaProgram &p, const dlc::CompileOptions &opts) {
  std::string src = "extern DLC_HIDDEN const char dlc_gpu_image[], dlc_gpu_weights[];\n";
  for (size_t i = 0; i < p.launches.size(); ++i) {
    src += "static const dlc_gpu_arg args" + std::to_string(i) + "[] = {";
    for (auto &[kind, index] : p.launches[i].args)
      src += "{" +
             std::string(kind == "input"    ? "DLC_GPU_ARG_INPUT"
                         : kind == "output" ? "DLC_GPU_ARG_OUTPUT"
                         : kind == "arena"  ? "DLC_GPU_ARG_ARENA"
                                            : "DLC_GPU_ARG_WEIGHTS") +
             ", " + std::to_string(index) + "}, ";
    src += "{0, 0}};\n";
  }
  src += "static const dlc_gpu_launch launches[] = {\n";
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const Launch &l = p.launches[i];
    src += "  {" + cString(l.kernel) + ", {" + std::to_string(l.grid[0]) + ", " +
           std::to_string(l.grid[1]) + ", " + std::to_string(l.grid[2]) + "}, {" +
           std::to_string(l.block[0]) + ", " + std::to_string(l.block[1]) + ", " +
           std::to_string(l.block[2]) + "}, " + std::to_string(l.args.size()) + ", args" +
           std::to_string(i) + "},\n";
  }
  src += "  {0, {0, 0, 0}, {0, 0, 0}, 0, 0}};\n";
  src += "static const dlc_gpu_meta gpu = {" + cString(opts.target.cpu) +
         ", dlc_gpu_image, dlc_gpu_weights, " + std::to_string(p.weightsBytes) + ", " +
         std::to_string(p.launches.size()) + ", launches};\n";
  return src;
}
} // namespace

bool dlc::compileCudaModel(ImportedModel &model, const CompileOptions &opts,
                           std::string &error) {
  CudaProgram program;
  if (!lowerForCuda(*model.module, model, opts, program, error))
    return false;
  nlohmann::json plan = planJson(program, opts);

  llvm::SmallString<128> dir;
  auto removeDir = llvm::make_scope_exit([&] {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  });
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("dlc-cuda", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  std::string d = dir.str().str();
  if (opts.emit == "ptx" || opts.emit == "cubin") {
    std::string image = program.ptx;
    if (opts.emit == "cubin" && !assemble(d, program.ptx, opts.target.cpu, image, error))
      return false;
    plan["kernels"] = llvm::sys::path::filename(opts.output).str();
    return writeFileAtomically(opts.output, image, error) &&
           (opts.output == "-" ||
            writeFileAtomically(opts.output + ".json", plan.dump(2) + "\n", error));
  }
  if (opts.emit != "lib") {
    error = "--emit=" + opts.emit + " is not available for " + opts.target.name +
            " (use mlir, ptx, cubin or lib)";
    return false;
  }

  // The kernel image: a cubin where ptxas is at hand, else PTX to JIT.
  std::string image, imageKind = "cubin", jitNote;
  if (!assemble(d, program.ptx, opts.target.cpu, image, jitNote)) {
    image = program.ptx;
    imageKind = "ptx";
  }
  nlohmann::json sig;
  auto tensors = [](const std::vector<TensorSignature> &ts) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto &t : ts)
      a.push_back({{"name", t.name}, {"dtype", dlc::dtypeName(t.dtype)}, {"shape", t.shape}});
    return a;
  };
  sig["inputs"] = tensors(model.inputs);
  sig["outputs"] = tensors(model.outputs);
  sig["target"] = {{"name", opts.target.name}, {"chip", opts.target.cpu}, {"image", imageKind}};
  sig["memory_plan"] = plan["memory_plan"];
  sig["memory_plan"]["inference_arena_bytes"] = program.arenaBytes;
  sig["launches"] = program.launches.size();
  sig["opset"] = model.opset;
  sig["graph"] = model.graphName;

  std::string meta = d + "/model_meta.c", tmpLib = d + "/model.so";
  std::string metaSrc = "/* Generated by dlc compile: a CUDA build's tables. */\n"
                        "#include \"model_abi.h\"\n\n" +
                        tensorTable("input", model.inputs) + tensorTable("output", model.outputs) +
                        gpuTables(program, opts) +
                        "DLC_HIDDEN const dlc_model_meta dlc_meta = {" +
                        std::to_string(model.inputs.size()) + ", " +
                        std::to_string(model.outputs.size()) + ", inputs, outputs, " +
                        std::to_string(program.arenaBytes) + ", " + cString(sig.dump()) +
                        ", 0, 0, 0, 0, 0, &gpu};\n";
  std::vector<std::string> sources{meta, d + "/image.s", d + "/weights.s"};
  return writeFileAtomically(d + "/image.bin", image, error) &&
         writeFileAtomically(d + "/weights.bin",
                             llvm::StringRef(program.weights.data(), program.weights.size()),
                             error) &&
         writeFileAtomically(sources[1],
                             incbin("dlc_gpu_image", d + "/image.bin", image.size(),
                                    imageKind == "ptx"),
                             error) &&
         writeFileAtomically(sources[2],
                             incbin("dlc_gpu_weights", d + "/weights.bin",
                                    program.weights.size(), false),
                             error) &&
         writeFileAtomically(meta, metaSrc, error) &&
         linkLibrary(sources, tmpLib, opts.output, error);
}
