// RUN: %dlc-opt %s -split-input-file -verify-diagnostics --dlc-verify-no-heap-alloc

func.func @left_alloc() {
  // expected-error @+1 {{heap allocation left in generated code after memory planning: memref.alloc}}
  %a = memref.alloc() : memref<16xf32>
  return
}

// -----

llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @left_malloc() {
  %n = llvm.mlir.constant(64 : i64) : i64
  // expected-error @+1 {{heap allocation left in generated code after memory planning: llvm.call}}
  %p = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

// -----

// Stack memory and views into the arena are fine.
func.func @planned(%arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<16xf32>
  %s = memref.alloca() : memref<4xf32>
  return
}
