// RUN: %dlc-opt %s --dlc-merge-kernel-modules | FileCheck %s

// Two outlined kernels, each in its own gpu.module (as gpu-kernel-outlining
// leaves them), end up in one module, named after the ONNX node each
// launch comes from (its location) and their order, and the launches
// follow.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @dlc_kernels::@conv_3_k0
// CHECK: gpu.launch_func @dlc_kernels::@kernel_k1
// CHECK: gpu.module @dlc_kernels
// CHECK: gpu.func @conv_3_k0
// CHECK: gpu.func @kernel_k1
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @main(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>) loc("conv_3"("m.onnx":0:0))
    gpu.launch_func @second_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @first_kernel {
    gpu.func @main_kernel(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @second_kernel {
    gpu.func @main_kernel(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
