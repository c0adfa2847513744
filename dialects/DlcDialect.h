//===- DlcDialect.h - the dlc dialect -------------------------------------===//
#ifndef DLC_DIALECTS_DLCDIALECT_H
#define DLC_DIALECTS_DLCDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/DlcDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/DlcOps.h.inc"

namespace dlc {
/// Output size of one spatial dim of a conv/pool window (ONNX formula).
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode);
} // namespace dlc

#endif
