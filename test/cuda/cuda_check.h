// CHECK(call): a failed CUDA runtime call prints its error and line and
// exits (the device-only kernel tests, gemm_kernels.cu and conv_kernels.cu).
#ifndef DLC_TEST_CUDA_CHECK_H
#define DLC_TEST_CUDA_CHECK_H
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e) {                                                                                  \
      printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__);                  \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)
#endif
