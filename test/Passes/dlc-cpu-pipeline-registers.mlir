// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=L2
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512

// A 1x1 conv of 16 filters over 2048 channels, as the CPU pipeline tiles it
// by target. AVX2 (16 registers): 6-row filter panels (16 padded to 18), a
// 6 x 16 register tile, K in chunks of 256. With AVX-512VL's 32 registers at
// 8 lanes (Zen 4): 8-row panels (16 rows, no padding) and an 8 x 16 tile,
// 16 accumulators. With 1 MB of L2 a core as well: K in chunks of 1024,
// also for AVX-512's tiles of two 16-lane vectors (8-row panels: 12 would
// pad 16 to 24; the 784 pixels padded to 800, 25 tiles of 32).
// AVX2: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 6-row panels (16 -> 18 rows)
// AVX2: scf.for %{{.*}} = %c0 to %c2048 step %c256
// AVX2: vector.contract {{.*}} : vector<1x1x6xf32>, vector<1x1x16xf32> into vector<1x1x6x16xf32>
// WIDE: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (16 -> 16 rows)
// WIDE: scf.for %{{.*}} = %c0 to %c2048 step %c256
// WIDE: vector.contract {{.*}} : vector<1x1x8xf32>, vector<1x1x16xf32> into vector<1x1x8x16xf32>
// L2: scf.for %{{.*}} = %c0 to %c2048 step %c1024
// L2: vector.contract {{.*}} : vector<1x1x8xf32>, vector<1x1x16xf32> into vector<1x1x8x16xf32>
// AVX512: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (16 -> 16 rows), 32-lane tiles (784 -> 800 pixels)
// AVX512: scf.for %{{.*}} = %c0 to %c2048 step %c1024
// AVX512: vector.contract {{.*}} : vector<1x1x8xf32>, vector<1x1x32xf32> into vector<1x1x8x32xf32>
func.func @main(%x: tensor<1x2048x28x28xf32>) -> tensor<1x16x28x28xf32> {
  %w = dlc.constant dense<0.5> : tensor<16x2048x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2048x28x28xf32>, tensor<16x2048x1x1xf32>) -> tensor<1x16x28x28xf32>
  return %c : tensor<1x16x28x28xf32>
}
