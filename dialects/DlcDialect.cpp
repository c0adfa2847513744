//===- DlcDialect.cpp - dialect registration ------------------------------===//
#include "dialects/DlcDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

#include "dialects/DlcDialect.cpp.inc"

void dlc::DlcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/DlcOps.cpp.inc"
      >();
}
