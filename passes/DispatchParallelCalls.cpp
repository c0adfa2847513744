//===- DispatchParallelCalls.cpp - outlined bodies onto the thread pool ---===//
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace dlc {
#define GEN_PASS_DEF_DISPATCHPARALLELCALLS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kBodyPrefix = "dlc_parallel_body_";

/// The ONNX node a loop came from (the importer's NameLoc, kept through
/// tiling and outlining), as a symbol suffix: "_conv_44". Profilers then
/// name each parallel loop's samples after its layer. Empty when the
/// location has no name (fused loops of several nodes keep the first).
std::string nodeSuffix(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (name.empty())
    return name;
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  return "_" + name.substr(0, 48);
}

struct DispatchParallelCallsPass
    : dlc::impl::DispatchParallelCallsBase<DispatchParallelCallsPass> {
  using DispatchParallelCallsBase::DispatchParallelCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto main = module.lookupSymbol<LLVM::LLVMFuncOp>(entry);
    if (!main || main.getNumArguments() == 0) {
      module.emitError("no lowered entry function '") << entry << "'";
      return signalPassFailure();
    }
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (call.getCallee() && call.getCallee()->starts_with(kBodyPrefix))
        calls.push_back(call);
    });
    if (calls.empty())
      return;

    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    // void dlc_parallel_for(void *pool, void (*fn)(void *, int64_t, int64_t),
    //                       void *ctx, int64_t n)   -- in runtime/runtime.c
    auto voidTy = LLVM::LLVMVoidType::get(ctx);
    auto dispatchTy = LLVM::LLVMFunctionType::get(voidTy, {ptr, ptr, ptr, i64});
    auto dispatch = b.create<LLVM::LLVMFuncOp>(module.getLoc(), "dlc_parallel_for", dispatchTy);
    // The same for bodies that sweep alternately (dlc-alternate-sweeps).
    LLVM::LLVMFuncOp alternating;
    Value pool = main.getArgument(main.getNumArguments() - 1);

    for (auto [index, call] : llvm::enumerate(calls)) {
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(*call.getCallee());
      callee.setLinkage(LLVM::Linkage::Internal);
      // Captured buffers proven disjoint (dlc-outline-parallel-loops): their
      // pointers are noalias, as the entry's are.
      if (callee->hasAttr("dlc.disjoint_buffers"))
        for (unsigned i = 0; i < callee.getNumArguments(); ++i)
          if (isa<LLVM::LLVMPointerType>(callee.getArgument(i).getType()))
            callee.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
      Location loc = call.getLoc();
      ValueRange args = call.getArgOperands().drop_front(2);
      SmallVector<Type> fields(args.getTypes());
      auto structTy = LLVM::LLVMStructType::getLiteral(ctx, fields);

      // Trampoline: (ctx, lo, hi) -> body(lo, hi, fields of *ctx...).
      b.setInsertionPointToEnd(module.getBody());
      auto trampTy = LLVM::LLVMFunctionType::get(voidTy, {ptr, i64, i64});
      auto tramp = b.create<LLVM::LLVMFuncOp>(
          loc, "dlc_parallel_tramp_" + std::to_string(index) + nodeSuffix(callee.getLoc()), trampTy,
          LLVM::Linkage::Internal);
      Block *tb = tramp.addEntryBlock(b);
      b.setInsertionPointToStart(tb);
      SmallVector<Value> bodyArgs{tb->getArgument(1), tb->getArgument(2)};
      for (auto [i, t] : llvm::enumerate(fields)) {
        Value addr = b.create<LLVM::GEPOp>(loc, ptr, structTy, tb->getArgument(0),
                                           ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
        bodyArgs.push_back(b.create<LLVM::LoadOp>(loc, t, addr));
      }
      b.create<LLVM::CallOp>(loc, callee, bodyArgs);
      b.create<LLVM::ReturnOp>(loc, ValueRange{});

      // Call site: pack the arguments on the stack and dispatch.
      Block &entryBlock = call->getParentOfType<LLVM::LLVMFuncOp>().getBody().front();
      b.setInsertionPointToStart(&entryBlock);
      Value one = b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(1));
      // 64: captured vectors (up to 512 bits) need their natural alignment.
      Value frame = b.create<LLVM::AllocaOp>(loc, ptr, structTy, one, /*alignment=*/64);
      b.setInsertionPoint(call);
      for (auto [i, v] : llvm::enumerate(args)) {
        Value addr = b.create<LLVM::GEPOp>(loc, ptr, structTy, frame,
                                           ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
        b.create<LLVM::StoreOp>(loc, v, addr);
      }
      Value fn = b.create<LLVM::AddressOfOp>(loc, tramp);
      Value n = call.getArgOperands()[1];
      LLVM::LLVMFuncOp runtime = dispatch;
      if (callee->hasAttr("dlc.alternate_sweeps")) {
        if (!alternating) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointAfter(dispatch);
          alternating = b.create<LLVM::LLVMFuncOp>(module.getLoc(), "dlc_parallel_for_alternating",
                                                   dispatchTy);
        }
        runtime = alternating;
      }
      b.create<LLVM::CallOp>(loc, runtime, ValueRange{pool, fn, frame, n});
      call.erase();
    }
  }
};
} // namespace
