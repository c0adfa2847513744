//===- Artifact.h - pieces every compiled library is built from -----------===//
//
// Shared by the CPU (Compile.cpp) and CUDA (CompileCuda.cpp) back ends:
// atomic file writes, the runtime's metadata tables as C source, and the
// final link with the runtime archive.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_LIB_CODEGEN_ARTIFACT_H
#define DLC_LIB_CODEGEN_ARTIFACT_H

#include "dlc/Import.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dlc::codegen {
/// Writes `data` to `path` through a temporary file and a rename ("-":
/// standard output).
bool writeFileAtomically(const std::string &path, llvm::StringRef data, std::string &error);

/// A C string literal of `s`, every byte that is not plain ASCII escaped.
std::string cString(const std::string &s);

/// `static const dlc_tensor_desc <kind>s[]` and the shapes it points to.
std::string tensorTable(const char *kind, const std::vector<dlc::TensorSignature> &ts);

/// The runtime's sources (headers, CUDA kernel templates): the source tree,
/// or $DLC_RUNTIME_DIR.
std::string runtimeDir();

/// A fresh temporary directory, removed with everything in it when this
/// goes out of scope.
struct TempDir {
  std::string path; ///< empty if it could not be made
  /// Makes `prefix`-XXXXXX under the system's temporary directory; false
  /// with `error` on failure.
  bool make(const std::string &prefix, std::string &error);
  ~TempDir();
};

/// [{"name", "dtype", "shape"}...]: the signature's tensor lists.
nlohmann::json tensorsJson(const std::vector<dlc::TensorSignature> &ts);

/// Compiles `sources` with the runtime archive into the shared library
/// `output`, through `tmpLib`.
bool linkLibrary(const std::vector<std::string> &sources, const std::string &tmpLib,
                 const std::string &output, std::string &error);

/// Keeps the first diagnostic emitted while it lives ("loc: message").
struct FirstDiagnostic {
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
  explicit FirstDiagnostic(mlir::MLIRContext *ctx);
};
} // namespace dlc::codegen

#endif
