//===- dlc.cpp - the dlc command line: compile, run, inspect --------------===//
#include "dlc/Compile.h"
#include "dlc/Import.h"
#include "dlc/runtime.h"
#include "tools/dlc/Cli.h"
#include "tools/dlc/Npy.h"
#include "tools/dlc/Train.h"

#include "llvm/ADT/APFloat.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {
using namespace dlc::cli;

int usage() {
  fprintf(stderr,
          "usage:\n"
          "  dlc compile MODEL.onnx -o OUT.so [--target=x86-64-avx2|x86-64-avx512|native|cuda:sm_90]\n"
          "              [--input-shape NAME=DIMS]... [--bind NAME=FILE.npy]... [-O0..-O3]\n"
          "              [--emit=mlir|llvm|asm|obj|lib|ptx|cubin] [--print-ir-after-all]\n"
          "              [--no-batch-split] (keep a separable batch together)\n"
          "              [--cores N] (the cores it will run on; native: the host's)\n"
          "              [--precision=fp32|tf32|bf16|fp16] (CUDA targets; default tf32)\n"
          "  dlc run LIB.so [--input NAME=FILE.npy]... --output-dir DIR [--repeat N]\n"
          "              [--threads N] [--print-time] [--seed S]\n"
          "  dlc inspect LIB.so\n"
          "  dlc compile MODEL.onnx --train [--loss=softmax-cross-entropy|mse]\n"
          "              [--optimizer=sgd|adam] [--momentum M] [--weight-decay W]\n"
          "              [--mem-budget BYTES] -o TRAIN.so\n"
          "  dlc train MODEL.onnx|TRAIN.so --dataset fashion-mnist [--lr 0.05] [--batch 64]\n"
          "              [--epochs N] [--seed S] [--save PARAMS.bin] [--threads N] [--log-dir DIR]\n"
          "              [--loss ...] [--optimizer ...] [--momentum M] [--data-dir DIR]\n"
          "  dlc export-onnx MODEL.onnx PARAMS.bin -o OUT.onnx\n");
  return 2;
}

bool parseDims(const std::string &s, std::vector<int64_t> &dims) {
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      return false;
    dims.push_back(std::stoll(part));
    if (dims.back() <= 0)
      return false;
  }
  return !dims.empty();
}

int compileCommand(int argc, char **argv) {
  std::string model, target = "native", error, value;
  dlc::CompileOptions opts;
  dlc::ImportOptions importOpts;
  bool batchSplit = true;
  int64_t cores = 0; ///< --cores; 0: the target's
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionValue(argc, argv, i, "-o", value)) {
      opts.output = value;
    } else if (optionValue(argc, argv, i, "--target", value)) {
      target = value;
    } else if (optionValue(argc, argv, i, "--emit", value)) {
      opts.emit = value;
      if (!(value == "mlir" || value == "llvm" || value == "asm" || value == "obj" ||
            value == "lib" || value == "ptx" || value == "cubin"))
        return fail("--emit must be mlir, llvm, asm, obj, lib, ptx or cubin (got '" + value +
                    "')");
    } else if (optionValue(argc, argv, i, "--precision", value)) {
      opts.precision = value;
      if (!(value == "fp32" || value == "tf32" || value == "bf16" || value == "fp16"))
        return fail("--precision must be fp32, tf32, bf16 or fp16 (got '" + value + "')");
    } else if (optionValue(argc, argv, i, "--input-shape", value)) {
      auto eq = value.find('=');
      std::vector<int64_t> dims;
      if (eq == std::string::npos || !parseDims(value.substr(eq + 1), dims))
        return fail("--input-shape expects NAME=DIMS like data=1x3x224x224 (got '" + value + "')");
      importOpts.inputShapes[value.substr(0, eq)] = dims;
    } else if (optionValue(argc, argv, i, "--bind", value)) {
      auto eq = value.find('=');
      if (eq == std::string::npos)
        return fail("--bind expects NAME=FILE.npy (got '" + value + "')");
      dlc::NpyArray a;
      if (!dlc::readNpy(value.substr(eq + 1), a, error))
        return fail("--bind " + value.substr(0, eq) + ": " + error);
      dlc::BoundInput bound{a.dtype, a.shape, {}, {}};
      if (dlc::dtypeIsFloat(a.dtype))
        bound.floats = a.doubles();
      else
        bound.ints = a.ints();
      importOpts.bindings[value.substr(0, eq)] = bound;
    } else if (arg == "--train") {
      opts.train.enabled = true;
    } else if (optionValue(argc, argv, i, "--loss", value)) {
      if (value != "softmax-cross-entropy" && value != "mse")
        return fail("--loss must be softmax-cross-entropy or mse (got '" + value + "')");
      opts.train.loss = value;
    } else if (optionValue(argc, argv, i, "--optimizer", value)) {
      if (value != "sgd" && value != "adam")
        return fail("--optimizer must be sgd or adam (got '" + value + "')");
      opts.train.optimizer = value;
    } else if (optionValue(argc, argv, i, "--momentum", value)) {
      if (!parseNumber(value, opts.train.momentum) || opts.train.momentum < 0)
        return fail("--momentum expects a number >= 0 (got '" + value + "')");
    } else if (optionValue(argc, argv, i, "--weight-decay", value)) {
      if (!parseNumber(value, opts.train.weightDecay) || opts.train.weightDecay < 0)
        return fail("--weight-decay expects a number >= 0 (got '" + value + "')");
    } else if (optionValue(argc, argv, i, "--mem-budget", value)) {
      if (!parseBytes(value, opts.memBudget))
        return fail("--mem-budget expects a byte count such as 5000000 or 4M (got '" + value +
                    "')");
    } else if (arg.size() == 3 && arg.rfind("-O", 0) == 0 && arg[2] >= '0' && arg[2] <= '3') {
      opts.optLevel = arg[2] - '0';
    } else if (arg == "--print-ir-after-all") {
      opts.printIrAfterAll = true;
    } else if (arg == "--no-batch-split") {
      batchSplit = false;
    } else if (optionValue(argc, argv, i, "--cores", value)) {
      char *end = nullptr;
      cores = strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || cores <= 0)
        return fail("--cores expects a positive integer (got '" + value + "')");
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'");
    } else if (model.empty()) {
      model = arg;
    } else {
      return fail("more than one model given ('" + model + "', '" + arg + "')");
    }
  }
  if (model.empty() || opts.output.empty())
    return usage();
  std::error_code ec;
  if (fs::exists(opts.output, ec) && fs::equivalent(model, opts.output, ec))
    return fail("output '" + opts.output + "' is the input model; refusing to overwrite it");
  if (!dlc::resolveTarget(target, opts.target, error))
    return fail(error);
  // The cores the library is for: a cross build's are unknown unless given
  // (how GEMMs split their panels per core, where a batch tail starts).
  if (cores)
    opts.target.cores = cores;
  importOpts.trainable = opts.train.enabled;
  return compileOnnxFile(model, importOpts, opts, error, batchSplit) ? 0 : fail(error);
}

std::string sanitize(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!(isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-'))
      c = '_';
  return s;
}

/// Seeded inputs when none are given: floats uniform in [-1, 1], integers
/// in [0, 8) (valid as small indices), bools 0 or 1.
void randomFill(dlc::NpyArray &a, std::mt19937 &rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, a.dtype == dlc::kBool ? 1 : 7);
  int64_t w = dlc::dtypeBytes(a.dtype);
  for (int64_t i = 0; i < a.numel(); ++i) {
    char *p = a.bytes.data() + i * w;
    if (a.dtype == dlc::kFloat32) {
      float v = real(rng);
      memcpy(p, &v, 4);
    } else if (a.dtype == dlc::kFloat64) {
      double v = real(rng);
      memcpy(p, &v, 8);
    } else if (a.dtype == dlc::kFloat16 || a.dtype == dlc::kBFloat16) {
      llvm::APFloat v(real(rng));
      bool lost;
      v.convert(a.dtype == dlc::kFloat16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = v.bitcastToAPInt().getZExtValue();
      memcpy(p, &bits, 2);
    } else {
      int64_t v = small(rng);
      memcpy(p, &v, w); // little-endian: the low bytes
    }
  }
}

int runCommand(int argc, char **argv) {
  std::string lib, outDir, value, error;
  std::vector<std::pair<std::string, std::string>> inputFiles;
  int repeat = 1, threads = 0;
  unsigned seed = 0;
  bool printTime = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionValue(argc, argv, i, "--input", value)) {
      auto eq = value.find('=');
      if (eq == std::string::npos)
        return fail("--input expects NAME=FILE.npy (got '" + value + "')");
      inputFiles.push_back({value.substr(0, eq), value.substr(eq + 1)});
    } else if (optionValue(argc, argv, i, "--output-dir", value)) {
      outDir = value;
    } else if (optionValue(argc, argv, i, "--repeat", value)) {
      repeat = atoi(value.c_str());
      if (repeat <= 0)
        return fail("--repeat must be a positive integer");
    } else if (optionValue(argc, argv, i, "--threads", value)) {
      threads = atoi(value.c_str());
      if (threads < 0)
        return fail("--threads must be >= 0");
    } else if (optionValue(argc, argv, i, "--seed", value)) {
      seed = (unsigned)strtoul(value.c_str(), nullptr, 10);
    } else if (arg == "--print-time") {
      printTime = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'");
    } else if (lib.empty()) {
      lib = arg;
    } else {
      return fail("more than one library given");
    }
  }
  if (lib.empty() || outDir.empty())
    return usage();
  Library L;
  if (!L.open(lib, error))
    return fail(error);

  // Inputs: from .npy files, or seeded uniform random in [-1, 1].
  std::vector<dlc::NpyArray> inputs;
  std::vector<std::vector<int64_t>> inShapes;
  std::mt19937 rng(seed);
  for (const auto &in : L.sig["inputs"]) {
    std::string name = in["name"];
    std::vector<int64_t> shape = in["shape"];
    dlc::NpyArray a;
    auto it = std::find_if(inputFiles.begin(), inputFiles.end(),
                           [&](auto &p) { return p.first == name; });
    if (it != inputFiles.end()) {
      if (!dlc::readNpy(it->second, a, error))
        return fail("input '" + name + "': " + error);
    } else if (inputFiles.empty()) {
      a.shape = shape;
      a.dtype = dlc::dtypeFromName(in["dtype"].get<std::string>());
      a.allocate();
      randomFill(a, rng);
    } else {
      return fail("no --input given for model input '" + name + "'");
    }
    inputs.push_back(std::move(a));
  }
  for (auto &[name, file] : inputFiles) {
    bool known = false;
    for (const auto &in : L.sig["inputs"])
      known |= in["name"] == name;
    if (!known)
      return fail("--input names '" + name + "', which is not a model input");
  }
  std::vector<std::string> inNames, outNames;
  std::vector<dlc_tensor> inT, outT;
  for (const auto &in : L.sig["inputs"])
    inNames.push_back(in["name"]);
  for (size_t i = 0; i < inputs.size(); ++i)
    inT.push_back({inNames[i].c_str(), inputs[i].dtype, (int32_t)inputs[i].shape.size(),
                   inputs[i].shape.data(), inputs[i].bytes.data()});
  std::vector<dlc::NpyArray> outputs;
  for (const auto &out : L.sig["outputs"]) {
    dlc::NpyArray a;
    a.shape = out["shape"].get<std::vector<int64_t>>();
    a.dtype = dlc::dtypeFromName(out["dtype"].get<std::string>());
    a.allocate();
    outputs.push_back(std::move(a));
    outNames.push_back(out["name"]);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    outT.push_back({outNames[i].c_str(), outputs[i].dtype, (int32_t)outputs[i].shape.size(),
                    outputs[i].shape.data(), outputs[i].bytes.data()});

  dlc_model *model = nullptr;
  if (L.create(&model, nullptr, 0) != DLC_OK)
    return fail(L.lastError(nullptr));
  L.setThreads(model, threads);
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    int rc = L.run(model, inT.data(), inT.size(), outT.data(), outT.size());
    auto t1 = std::chrono::steady_clock::now();
    if (rc != DLC_OK) {
      std::string msg = L.lastError(model);
      L.destroy(model);
      return fail("run failed: " + msg);
    }
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  L.destroy(model);

  std::error_code ec;
  fs::create_directories(outDir, ec);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string file = (fs::path(outDir) / (sanitize(outNames[i]) + ".npy")).string();
    if (!dlc::writeNpy(file, outputs[i], error))
      return fail(error);
    printf("%s: shape [", outNames[i].c_str());
    for (size_t d = 0; d < outputs[i].shape.size(); ++d)
      printf("%s%lld", d ? ", " : "", (long long)outputs[i].shape[d]);
    printf("] -> %s; first values:", file.c_str());
    bool isFloat = dlc::dtypeIsFloat(outputs[i].dtype);
    std::vector<double> values;
    std::vector<int64_t> ints;
    (isFloat ? (void)(values = outputs[i].doubles()) : (void)(ints = outputs[i].ints()));
    for (int64_t k = 0; k < std::min<int64_t>(5, outputs[i].numel()); ++k)
      if (isFloat)
        printf(" %.6g", values[k]);
      else
        printf(" %lld", (long long)ints[k]);
    printf("\n");
  }
  if (printTime) {
    std::vector<double> s = times;
    std::sort(s.begin(), s.end());
    double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
    printf("median %.3f ms, min %.3f ms, max %.3f ms over %d runs\n", median, s.front(),
           s.back(), repeat);
  }
  return 0;
}

int inspectCommand(int argc, char **argv) {
  if (argc != 3)
    return usage();
  Library L;
  std::string error;
  if (!L.open(argv[2], error))
    return fail(error);
  const auto &sig = L.sig;
  auto list = [](const char *title, const nlohmann::json &ts) {
    printf("%s:\n", title);
    for (const auto &t : ts)
      printf("  %s: %s %s\n", t["name"].get<std::string>().c_str(),
             t["dtype"].get<std::string>().c_str(), t["shape"].dump().c_str());
  };
  printf("library: %s\n", argv[2]);
  list("inputs", sig["inputs"]);
  list("outputs", sig["outputs"]);
  const auto &target = sig["target"];
  if (target.contains("chip")) // CUDA build
    printf("target: %s (GPU %s, %s kernels, %lld launches of which %lld tensor-core GEMMs at "
           "%s; device buffer: weights %lld bytes + arena + inputs + outputs)\n",
           target["name"].get<std::string>().c_str(), target["chip"].get<std::string>().c_str(),
           target["image"].get<std::string>().c_str(), (long long)sig["launches"].get<int64_t>(),
           (long long)target.value("tensor_core_gemms", int64_t(0)),
           target.value("precision", std::string("fp32")).c_str(),
           (long long)sig["memory_plan"]["weights_bytes"].get<int64_t>());
  else
    printf("target: %s (cpu %s, %d f32 lanes, %d vector registers)\n",
           target["name"].get<std::string>().c_str(), target["cpu"].get<std::string>().c_str(),
           target["vector_width"].get<int>(), target.value("vector_registers", 16));
  const auto &plan = sig["memory_plan"];
  int64_t arena = plan["arena_bytes"], bound = plan["lower_bound_bytes"];
  // With a batch tail the arena also holds the tail's plan and its input:
  // the ratio is the plan's own (one image's) against its bound.
  int64_t own = sig.contains("batch_tail") ? plan.value("inference_arena_bytes", arena) : arena;
  printf("memory plan: arena %lld bytes, lower bound %lld bytes (peak live), ratio %.3f, "
         "%lld buffers, %d-byte aligned\n",
         (long long)arena, (long long)bound, bound ? (double)own / bound : 1.0,
         (long long)plan["buffers"].get<int64_t>(), plan["alignment"].get<int>());
  if (sig.contains("batch_runs"))
    printf("batch: %lld images, run one at a time (batch-separable; %s)\n",
           (long long)sig["batch_runs"].get<int64_t>(),
           sig.contains("batch_tail") ? "the lower bound above is of one image's plan"
                                      : "the plan above is one image's");
  else if (sig.contains("batch_kept"))
    printf("batch: run whole (%s)\n", sig["batch_kept"].get<std::string>().c_str());
  if (sig.contains("batch_tail")) {
    // The ops after the images' runs (lib/CodeGen/BatchSplit.cpp's splitBatchTail).
    const auto &tail = sig["batch_tail"];
    std::string shape;
    for (const auto &d : tail["input"][0]["shape"])
      shape += (shape.empty() ? "" : "x") + std::to_string(d.get<int64_t>());
    printf("batch tail: %s, run once on the images' %s results (its plan: %lld bytes; one "
           "image's: %lld; the arena holds the larger, then the tail's input)\n",
           tail["ops"].get<std::string>().c_str(), shape.c_str(),
           (long long)tail["arena_bytes"].get<int64_t>(), (long long)own);
  }
  if (sig.contains("conv_kernels")) {
    printf("convolutions (%zu):\n", sig["conv_kernels"].size());
    for (const auto &k : sig["conv_kernels"])
      printf("  %s\n", k.get<std::string>().c_str());
  }
  if (sig.contains("training")) {
    const auto &t = sig["training"];
    printf("train step plan: arena %lld bytes, lower bound %lld bytes, %lld buffers; "
           "persistent region %lld bytes\n",
           (long long)t["arena_bytes"].get<int64_t>(),
           (long long)t["lower_bound_bytes"].get<int64_t>(),
           (long long)t["buffers"].get<int64_t>(),
           (long long)t["persistent_bytes"].get<int64_t>());
  }
  if (sig.contains("memory_budget")) {
    const auto &b = sig["memory_budget"];
    int64_t budget = b["budget_bytes"], planned = b["arena_bytes"],
            free = b["unconstrained_arena_bytes"], cap = b["max_workspace_bytes"];
    printf("memory budget: %lld bytes; arena %lld bytes without it, %lld with it (%.1f%%, %s); "
           "im2col workspaces %s; %lld tensors recomputed (%lld bytes), extra FLOPs %lld per step\n",
           (long long)budget, (long long)free, (long long)planned,
           free ? 100.0 * planned / free : 100.0, planned <= budget ? "fits" : "over",
           cap ? ("chunked to at most " + std::to_string(cap) + " bytes").c_str() : "unchunked",
           (long long)b.value("recomputed_ops", int64_t(0)),
           (long long)b.value("recomputed_bytes", int64_t(0)),
           (long long)b["extra_flops"].get<int64_t>());
  }
  printf("signature: %s\n", sig.dump().c_str());
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string cmd = argv[1];
  if (cmd == "compile")
    return compileCommand(argc, argv);
  if (cmd == "run")
    return runCommand(argc, argv);
  if (cmd == "inspect")
    return inspectCommand(argc, argv);
  if (cmd == "train")
    return dlc::trainCommand(argc, argv);
  if (cmd == "export-onnx")
    return dlc::exportOnnxCommand(argc, argv);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage();
    return 0;
  }
  fprintf(stderr, "dlc: error: unknown command '%s'\n", cmd.c_str());
  return usage();
}
