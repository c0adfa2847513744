// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2

// A matmul by a constant weight, as the CPU pipeline packs and tiles it by
// target: the weight in panels as wide as the register tile (two vectors),
// so AVX-512 takes the 12 x 32 tile (24 accumulators). Panels of one
// 16-lane vector gave a 12 x 16 tile, 13 loads a k step for 12 FMAs: a
// 1024^3 matmul at 65% of OpenBLAS on Sapphire Rapids, against 121% in
// 32-lane panels (bench/bench_matmul.py, one thread).
// AVX512-LABEL: func.func @main
// AVX512: dense_resource<packed_weight{{.*}}> : tensor<8x256x32xf32>
// AVX512: vector.contract {{.*}} : vector<12x1xf32>, vector<1x1x32xf32> into vector<12x1x32xf32>
// AVX512-NOT: vector<12x1x16xf32>
// AVX2-LABEL: func.func @main
// AVX2: dense_resource<packed_weight{{.*}}> : tensor<16x256x16xf32>
func.func @main(%a: tensor<96x256xf32>) -> tensor<96x256xf32> {
  %w = dlc.constant dense<0.5> : tensor<256x256xf32>
  %y = dlc.matmul %a, %w : tensor<96x256xf32>, tensor<256x256xf32> -> tensor<96x256xf32>
  return %y : tensor<96x256xf32>
}
