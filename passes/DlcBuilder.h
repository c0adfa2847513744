//===- DlcBuilder.h - building dlc ops from graph passes ------------------===//
//
// The training passes (dlc-append-loss, dlc-autodiff, dlc-apply-optimizer)
// write new dlc ops; these shortcuts infer result types the way the
// importer does and keep one location (the node being differentiated).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_DLCBUILDER_H
#define DLC_PASSES_DLCBUILDER_H

#include "dialects/DlcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace dlc {
struct DlcBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;

  /// An op whose result type is inferred (InferTypeOpAdaptor ops).
  template <typename OpTy>
  mlir::Value op(mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    return b.create<OpTy>(loc, operands, attrs)->getResult(0);
  }
  /// An op whose result has its operand's type (SameOperandsAndResultType).
  template <typename OpTy>
  mlir::Value same(mlir::Value x, llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    return b.create<OpTy>(loc, mlir::TypeRange{x.getType()}, mlir::ValueRange{x}, attrs)
        ->getResult(0);
  }

  static mlir::RankedTensorType type(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  static mlir::Type elem(mlir::Value v) { return type(v).getElementType(); }

  /// A constant tensor of `type` filled with `value`.
  mlir::Value splat(mlir::RankedTensorType type, double value);
  /// A 0-D constant.
  mlir::Value scalar(mlir::Type elem, double value) {
    return splat(mlir::RankedTensorType::get({}, elem), value);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) { return op<AddOp>({x, y}); }
  mlir::Value sub(mlir::Value x, mlir::Value y) { return op<SubOp>({x, y}); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return op<MulOp>({x, y}); }
  mlir::Value div(mlir::Value x, mlir::Value y) { return op<DivOp>({x, y}); }
  mlir::Value scale(mlir::Value x, double s) { return s == 1.0 ? x : mul(x, scalar(elem(x), s)); }
  mlir::Value neg(mlir::Value x) { return same<NegOp>(x); }
  mlir::Value compare(llvm::StringRef predicate, mlir::Value x, mlir::Value y);
  mlir::Value where(mlir::Value cond, mlir::Value x, mlir::Value y) {
    return op<WhereOp>({cond, x, y});
  }
  mlir::Value cast(mlir::Value x, mlir::Type to);
  mlir::Value reduce(mlir::Value x, llvm::StringRef kind, llvm::ArrayRef<int64_t> axes,
                     bool keepdims);
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value expand(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);
  mlir::Value gemm(mlir::Value a, mlir::Value b, bool transA, bool transB, double alpha = 1.0);
  /// Sums `g` (a broadcast result) down to `shape`, numpy's broadcast undone.
  mlir::Value sumTo(mlir::Value g, llvm::ArrayRef<int64_t> shape);
};
/// The training passes tag main's arguments with dlc.role (input, parameter,
/// buffer, labels, learning_rate, state) and dlc.name. "" when untagged.
llvm::StringRef argRole(mlir::func::FuncOp func, unsigned index);
/// Inserts a tagged argument at `index` (default: last) and returns it.
mlir::BlockArgument addRoleArgument(mlir::func::FuncOp func, mlir::Type type,
                                    llvm::StringRef name, llvm::StringRef role,
                                    std::optional<unsigned> index = std::nullopt);
} // namespace dlc

#endif
