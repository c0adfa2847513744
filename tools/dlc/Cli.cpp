//===- Cli.cpp - what the dlc subcommands share ---------------------------===//
#include "tools/dlc/Cli.h"

#include "dlc/Registration.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdio>
#include <cstdlib>

namespace dlc::cli {
int fail(const std::string &msg) {
  fprintf(stderr, "dlc: error: %s\n", msg.c_str());
  return 1;
}

/// `--flag=value` or `--flag value`; advances `i` past what it consumed.
bool optionValue(int argc, char **argv, int &i, const char *flag, std::string &out) {
  std::string arg = argv[i];
  std::string f = flag;
  if (arg == f) {
    if (i + 1 >= argc)
      return false;
    out = argv[++i];
    return true;
  }
  if (arg.rfind(f + "=", 0) == 0) {
    out = arg.substr(f.size() + 1);
    return true;
  }
  return false;
}

bool parseNumber(const std::string &s, double &out) {
  char *end = nullptr;
  out = strtod(s.c_str(), &end);
  return !s.empty() && end && *end == 0;
}

bool parseBytes(const std::string &s, int64_t &out) {
  char *end = nullptr;
  long long v = strtoll(s.c_str(), &end, 10);
  if (s.empty() || !end || end == s.c_str() || v <= 0)
    return false;
  std::string suffix(end);
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
  if (shift < 0)
    return false;
  out = (int64_t)v << shift;
  return true;
}

bool compileOnnxFile(const std::string &model, const dlc::ImportOptions &importOpts,
                     const dlc::CompileOptions &opts, std::string &error, bool batchSplit) {
  mlir::DialectRegistry registry;
  dlc::registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  dlc::ImportedModel imported;
  if (!dlc::importOnnxFile(ctx, model, importOpts, imported, error))
    return false;
  dlc::CompileOptions options = opts;
  dlc::ImportedModel single;
  if (batchSplit && !opts.train.enabled && !opts.target.isCuda() && opts.emit == "lib" &&
      opts.optLevel > 0 && !imported.inputs.empty()) {
    // The same file at batch 1 (a model the importer refuses there, one
    // whose Reshape spells out the batch, simply keeps its batch).
    dlc::ImportOptions one = importOpts;
    one.batch = 1;
    std::string why;
    if (imported.inputs[0].shape.size() && imported.inputs[0].shape[0] > 1) {
      if (dlc::importOnnxFile(ctx, model, one, single, why))
        options.batchRuns = dlc::separableBatch(imported, single, why);
      else
        why = "not importable at batch 1: " + why;
      if (options.batchRuns > 1) {
        single.inputs = imported.inputs;
        single.outputs = imported.outputs;
      } else {
        options.batchKept = why;
      }
    }
  }
  // Ops after a matrix-vector product per image (a classifier) run once on
  // the whole batch.
  mlir::OwningOpRef<mlir::ModuleOp> tail;
  if (options.batchRuns > 1 &&
      dlc::splitBatchTail(single, imported, options.target.cores, tail, options.batchTailInput,
                          options.batchTail))
    options.batchTailModule = *tail;
  if (dlc::compileModel(options.batchRuns > 1 ? single : imported, options, error))
    return true;
  error = model + ": " + error;
  return false;
}
} // namespace dlc::cli
