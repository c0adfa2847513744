//===- Cli.h - what the dlc subcommands share -----------------------------===//
#ifndef DLC_TOOLS_CLI_H
#define DLC_TOOLS_CLI_H

#include "dlc/Compile.h"
#include "dlc/Import.h"
#include "dlc/runtime.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <string>
#include <type_traits>

namespace dlc::cli {
/// Prints "dlc: error: MSG" and returns 1 (the exit status).
int fail(const std::string &msg);
/// `--flag=value` or `--flag value`; advances `i` past what it consumed.
bool optionValue(int argc, char **argv, int &i, const char *flag, std::string &out);
/// A whole string as a number.
bool parseNumber(const std::string &s, double &out);
/// A byte count: digits with an optional K, M or G suffix (powers of 1024).
bool parseBytes(const std::string &s, int64_t &out);
/// Imports and compiles `model` in a fresh MLIR context; false with a
/// one-line `error` (naming the model) on failure. With `batchSplit`, a
/// batch-separable CPU inference library is built from the model's batch-1
/// import and runs an image at a time (dlc::separableBatch).
bool compileOnnxFile(const std::string &model, const dlc::ImportOptions &importOpts,
                     const dlc::CompileOptions &opts, std::string &error,
                     bool batchSplit = false);

/// A compiled model library opened with dlopen.
struct Library {
  void *handle = nullptr;
  size_t (*arenaBytes)();
  int (*create)(dlc_model **, void *, size_t);
  int (*run)(dlc_model *, const dlc_tensor *, size_t, dlc_tensor *, size_t);
  int (*setThreads)(dlc_model *, int);
  const char *(*signature)();
  const char *(*lastError)(const dlc_model *);
  void (*destroy)(dlc_model *);
  int (*trainStep)(dlc_model *, const dlc_tensor *, size_t, double, double *) = nullptr;
  int (*saveParameters)(dlc_model *, const char *) = nullptr;
  int (*loadParameters)(dlc_model *, const char *) = nullptr;
  nlohmann::json sig;

  bool open(const std::string &path, std::string &error) {
    std::string p = path.find('/') == std::string::npos ? "./" + path : path;
    handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = std::string("cannot load '") + path + "': " + dlerror();
      return false;
    }
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
      ok &= fn != nullptr;
    };
    sym(arenaBytes, "dlc_arena_bytes");
    sym(create, "dlc_create");
    sym(run, "dlc_run");
    sym(setThreads, "dlc_set_threads");
    sym(signature, "dlc_signature_json");
    sym(lastError, "dlc_last_error");
    sym(destroy, "dlc_destroy");
    // Training builds only (absent symbols stay null in older libraries).
    trainStep = reinterpret_cast<decltype(trainStep)>(dlsym(handle, "dlc_train_step"));
    saveParameters = reinterpret_cast<decltype(saveParameters)>(dlsym(handle, "dlc_save_parameters"));
    loadParameters = reinterpret_cast<decltype(loadParameters)>(dlsym(handle, "dlc_load_parameters"));
    if (!ok) {
      error = "'" + path + "' is not a dlc model library (missing the dlc_* C API)";
      return false;
    }
    sig = nlohmann::json::parse(signature(), nullptr, /*allow_exceptions=*/false);
    if (sig.is_discarded()) {
      error = "'" + path + "' has a malformed signature";
      return false;
    }
    return true;
  }
};

} // namespace dlc::cli

#endif
