// RUN: %dlc-opt %s --dlc-merge-kernel-modules | FileCheck %s

// Two outlined kernels, each in its own gpu.module (as gpu-kernel-outlining
// leaves them), end up in one module under their old modules' names, and
// the launches follow.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @dlc_kernels::@first_kernel
// CHECK: gpu.launch_func @dlc_kernels::@second_kernel
// CHECK: gpu.module @dlc_kernels
// CHECK: gpu.func @first_kernel
// CHECK: gpu.func @second_kernel
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @main(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
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
