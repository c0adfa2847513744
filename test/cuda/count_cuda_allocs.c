/* A driver shim for the CUDA allocation test: run a model with
 * DLC_CUDA_DRIVER pointing here. It defines the driver's device-memory
 * allocation entry points, counts each call and forwards it to the real
 * driver; every other symbol the runtime looks up resolves, through this
 * library's dependency on libcuda.so.1, to the driver itself.
 *
 * Built here (no GPU needed): cc -shared -fPIC count_cuda_allocs.c -o
 * libcount_cuda_allocs.so -L/usr/local/cuda/lib64/stubs
 * -Wl,--no-as-needed -lcuda -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUstream_st *CUstream;

static long allocations;

/* Read by the test through ctypes. */
long dlc_count_allocations(void) { return allocations; }

#define FORWARD(name, params, args)                                                           \
  CUresult name params {                                                                      \
    static CUresult(*real) params;                                                            \
    if (!real)                                                                                 \
      *(void **)&real = dlsym(RTLD_NEXT, #name);                                              \
    ++allocations;                                                                             \
    return real args;                                                                          \
  }

FORWARD(cuMemAlloc_v2, (CUdeviceptr * p, size_t n), (p, n))
FORWARD(cuMemAllocAsync, (CUdeviceptr * p, size_t n, CUstream s), (p, n, s))
FORWARD(cuMemAllocManaged, (CUdeviceptr * p, size_t n, unsigned flags), (p, n, flags))
FORWARD(cuMemAllocPitch_v2,
        (CUdeviceptr * p, size_t *pitch, size_t w, size_t h, unsigned e), (p, pitch, w, h, e))
FORWARD(cuMemAllocHost_v2, (void **p, size_t n), (p, n))
