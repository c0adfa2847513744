//===- Import.h - ONNX model to the dlc dialect ---------------------------===//
#ifndef DLC_IMPORT_H
#define DLC_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlc {
/// A graph input frozen to a constant (`dlc compile --bind`).
struct BoundInput {
  int32_t dtype = 1;          ///< a dlc::DType code
  std::vector<int64_t> shape;
  std::vector<double> floats; ///< float dtypes
  std::vector<int64_t> ints;  ///< integer and bool dtypes
};

struct ImportOptions {
  /// Full shapes for graph inputs, by name (binds symbolic dims).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// > 0: every graph input's dim 0 becomes this, whatever the model says
  /// (dlc compile's batch split imports a batch-N model again at 1).
  int64_t batch = 0;
  /// Inputs replaced by constants before anything else sees the graph, as
  /// onnx-mlir's "constant input" test variant: shape-like integer inputs
  /// (Reshape's shape, Squeeze's axes, ...) then fold like initializers.
  std::map<std::string, BoundInput> bindings;
  /// Training build: float initializers become `main` arguments with
  /// dlc.role = "parameter" (in initializer order) instead of constants;
  /// BatchNormalization's mean and variance get dlc.role = "buffer", and
  /// Dropout becomes dlc.dropout (identity until dlc-training-mode).
  bool trainable = false;
};

/// One graph input or output as the compiled library sees it.
struct TensorSignature {
  std::string name;
  int32_t dtype = 1; ///< a dlc::DType code
  std::vector<int64_t> shape;
};

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< func.func @main on tensors
  std::vector<TensorSignature> inputs, outputs;
  /// Trainable builds: the parameters (main's arguments after the inputs)
  /// and their initial bytes, row-major.
  std::vector<TensorSignature> parameters;
  std::vector<std::vector<char>> parameterData;
  /// Per parameter: "parameter" (trained by gradients) or "buffer" (a
  /// BatchNormalization running mean/variance, updated by the train step's
  /// forward pass, saved and exported like the rest).
  std::vector<std::string> parameterRoles;
  int64_t opset = 0;
  std::string graphName;
};

/// Reads `path` and builds the dlc module. On failure returns false and sets
/// `error` to one line naming the file, the node (name, index, op) and why.
bool importOnnxFile(mlir::MLIRContext &ctx, const std::string &path,
                    const ImportOptions &options, ImportedModel &out,
                    std::string &error);
} // namespace dlc

#endif
