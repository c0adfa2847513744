// encodeTensorMap: cuTensorMapEncodeTiled as the runtime calls it
// (runtime/cuda.c: 128-byte swizzle, 256-byte L2 promotion, zeros outside)
// for the device tests that drive the TMA kernels (gemm_tma.cu,
// folded_kernels.cu); a failure prints its code and exits. Include after
// gemm_tc.cu (DlcTensorMap).
#ifndef DLC_TEST_CUDA_TENSOR_MAP_H
#define DLC_TEST_CUDA_TENSOR_MAP_H
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static_assert(sizeof(CUtensorMap) == sizeof(DlcTensorMap), "the runtime's tensor map size");

inline DlcTensorMap encodeTensorMap(const float *p, int rank, const cuuint64_t *dims,
                                    const cuuint64_t *strides, const cuuint32_t *box,
                                    const cuuint32_t *elementStrides,
                                    CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_TFLOAT32) {
  CUtensorMap map;
  CUresult r = cuTensorMapEncodeTiled(&map, type, rank, (void *)p, dims, strides, box,
                                      elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r) {
    printf("cuTensorMapEncodeTiled failed: %d\n", (int)r);
    exit(1);
  }
  DlcTensorMap out;
  memcpy(&out, &map, sizeof(map));
  return out;
}
#endif
