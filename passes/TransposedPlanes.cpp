//===- TransposedPlanes.cpp - a plane-by-plane producer writing [N, H, C, W] ===//
//
// See TransposedPlanes.h. Only the slice chain changes: the body's other
// ops are cloned as they are, so whatever the kernel computes stays the
// same, and only where its rows go moves.
//
//===----------------------------------------------------------------------===//
#include "passes/TransposedPlanes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {
/// Dims 1 and 2 of a 4-d slice's offsets, sizes or strides swapped.
SmallVector<OpFoldResult> swapped(ArrayRef<OpFoldResult> v) { return {v[0], v[2], v[1], v[3]}; }

/// The row stores from `plane` to the value the insert puts back, each the
/// only user of the one before: 1-D rows along W, unmasked, at constant
/// indices with batch index 0. Empty if the chain is anything else.
SmallVector<vector::TransferWriteOp> rowStores(tensor::ExtractSliceOp plane,
                                              tensor::ParallelInsertSliceOp insert) {
  SmallVector<vector::TransferWriteOp> stores;
  Value cur = plane.getResult();
  while (cur != insert.getSource()) {
    if (!cur.hasOneUse())
      return {};
    auto store = dyn_cast<vector::TransferWriteOp>(*cur.getUsers().begin());
    if (!store || store.getSource() != cur || store.getMask() ||
        store.getVectorType().getRank() != 1 || !store.getPermutationMap().isMinorIdentity() ||
        !llvm::all_of(store.getIndices(),
                      [](Value i) { return getConstantIntValue(i).has_value(); }) ||
        getConstantIntValue(store.getIndices()[0]) != 0)
      return {};
    stores.push_back(store);
    cur = store.getResult();
  }
  if (!cur.hasOneUse() || stores.empty())
    return {};
  return stores;
}
} // namespace

Value dlc::writePlanesTransposed(OpBuilder &b, Value x) {
  auto forall = x.getDefiningOp<scf::ForallOp>();
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!forall || forall.getNumResults() != 1 || !type || type.getRank() != 4 ||
      !type.hasStaticShape() || !forall.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return {};
  BlockArgument shared = forall.getRegionIterArgs()[0];
  auto yields = forall.getTerminator().getYieldingOps();
  if (!llvm::hasSingleElement(yields))
    return {};
  auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(&*yields.begin());
  if (!insert || insert.getDest() != shared)
    return {};
  // The plane: the one other use of the shared output, the same slice as
  // the insert's, [1, c, H, W] from channel offset..., row and column 0.
  tensor::ExtractSliceOp plane;
  for (Operation *user : shared.getUsers()) {
    if (user == insert.getOperation())
      continue;
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || plane)
      return {};
    plane = slice;
  }
  if (!plane || plane.getType().getRank() != 4 ||
      plane.getMixedOffsets() != insert.getMixedOffsets() ||
      plane.getMixedSizes() != insert.getMixedSizes() ||
      plane.getMixedStrides() != insert.getMixedStrides())
    return {};
  ArrayRef<int64_t> sizes = plane.getStaticSizes();
  ArrayRef<int64_t> offsets = plane.getStaticOffsets();
  if (sizes[0] != 1 || ShapedType::isDynamic(sizes[1]) || sizes[2] != type.getDimSize(2) ||
      sizes[3] != type.getDimSize(3) || offsets[2] != 0 || offsets[3] != 0 ||
      !llvm::all_of(plane.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return {};
  SmallVector<vector::TransferWriteOp> stores = rowStores(plane, insert);
  if (stores.empty())
    return {};

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall);
  Location loc = forall.getLoc();
  Value init = b.create<tensor::EmptyOp>(
      loc, ArrayRef<int64_t>{type.getDimSize(0), type.getDimSize(2), type.getDimSize(1),
                             type.getDimSize(3)},
      type.getElementType());
  auto transposed =
      b.create<scf::ForallOp>(loc, forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                              forall.getMixedStep(), ValueRange{init}, forall.getMapping());
  IRMapping map;
  map.map(forall.getInductionVars(), transposed.getInductionVars());
  Value newShared = transposed.getRegionIterArgs()[0];
  map.map(shared, newShared);
  auto mapped = [&](ArrayRef<OpFoldResult> v) {
    SmallVector<OpFoldResult> out;
    for (OpFoldResult f : v)
      out.push_back(isa<Value>(f) ? OpFoldResult(map.lookupOrDefault(cast<Value>(f))) : f);
    return swapped(out);
  };
  b.setInsertionPointToStart(transposed.getBody());
  for (Operation &op : forall.getBody()->without_terminator()) {
    if (&op == plane.getOperation()) {
      Value slice = b.create<tensor::ExtractSliceOp>(loc, newShared,
                                                     mapped(plane.getMixedOffsets()),
                                                     mapped(plane.getMixedSizes()),
                                                     mapped(plane.getMixedStrides()));
      map.map(plane.getResult(), slice);
      continue;
    }
    auto store = dyn_cast<vector::TransferWriteOp>(op);
    if (store && llvm::is_contained(stores, store)) {
      SmallVector<Value> indices = llvm::map_to_vector(
          store.getIndices(), [&](Value i) { return map.lookupOrDefault(i); });
      std::swap(indices[1], indices[2]);
      SmallVector<bool> inBounds = store.getInBoundsValues();
      Value row = b.create<vector::TransferWriteOp>(loc, map.lookupOrDefault(store.getVector()),
                                                    map.lookup(store.getSource()), indices,
                                                    ArrayRef<bool>(inBounds))
                      .getResult();
      map.map(store.getResult(), row);
      continue;
    }
    b.clone(op, map);
  }
  b.setInsertionPointToStart(transposed.getTerminator().getBody());
  b.create<tensor::ParallelInsertSliceOp>(loc, map.lookup(insert.getSource()), newShared,
                                          mapped(insert.getMixedOffsets()),
                                          mapped(insert.getMixedSizes()),
                                          mapped(insert.getMixedStrides()));
  return transposed.getResult(0);
}
