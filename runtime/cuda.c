/*===- cuda.c - the CUDA part of the runtime ------------------------------===*
 *
 * A CUDA build's host side is a launch list (model_abi.h): no generated
 * host code. dlc_gpu_create loads the driver with dlopen (no link-time CUDA
 * dependency: a machine without a driver gets an error, not a loader
 * failure), makes one device allocation for [weights | arena | inputs |
 * outputs], uploads the weights once, loads the kernel image, encodes the
 * TMA tensor maps the launch list names (large matmuls' dlc_gemm_tma,
 * convs' dlc_conv_tma), and captures the launch list once as a CUDA graph.
 * dlc_gpu_run copies host inputs in, replays the graph and copies host
 * outputs out; a caller's device memory it reads and writes in place where
 * it can (256-byte aligned, an output overlapping nothing else), capturing
 * the graph again when that memory changes. No device allocation after
 * create. A kernel that faults inside the graph surfaces at
 * the final synchronisation without its name; DLC_CUDA_SYNC=1 launches the
 * kernels one by one with a synchronisation after each, so the error names
 * the kernel (after its ONNX node).
 *
 * The driver API's few types and entry points are declared here rather
 * than taken from cuda.h, so that the runtime builds without a CUDA
 * toolkit; the versioned symbol names are the ones cuda.h maps to.
 *
 *===----------------------------------------------------------------------===*/
#include "dlc/runtime.h"
#include "model_abi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

enum { POINTER_ATTRIBUTE_MEMORY_TYPE = 2, MEMORYTYPE_DEVICE = 2, STREAM_NON_BLOCKING = 1,
       STREAM_CAPTURE_MODE_THREAD_LOCAL = 1, FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

/* Every driver call the runtime makes, resolved once by name. */
#define DLC_CUDA_FUNCTIONS(X)                                                                  \
  X(cuInit, "cuInit", (unsigned))                                                              \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                                             \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))             \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                           \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))                          \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                              \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))        \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                      \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                  \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr, const void *, size_t, CUstream))  \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *, CUdeviceptr, size_t, CUstream))        \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr, CUdeviceptr, size_t, CUstream))   \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", (void *, int, CUdeviceptr))                \
  X(cuStreamCreate, "cuStreamCreate", (CUstream *, unsigned))                                  \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                         \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                    \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream, int))                          \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream, CUgraph *))                           \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags",                                         \
    (CUgraphExec *, CUgraph, unsigned long long))                                              \
  X(cuGraphLaunch, "cuGraphLaunch", (CUgraphExec, CUstream))                                   \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec))                                   \
  X(cuGraphDestroy, "cuGraphDestroy", (CUgraph))                                               \
  X(cuLaunchKernel, "cuLaunchKernel",                                                          \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,         \
     CUstream, void **, void **))                                                              \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction, int, int))                         \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char **))

typedef struct dlc_cuda_api {
#define DLC_CUDA_FIELD(field, symbol, params) CUresult(*field) params;
  DLC_CUDA_FUNCTIONS(DLC_CUDA_FIELD)
#undef DLC_CUDA_FIELD
} dlc_cuda_api;

static dlc_cuda_api cu;
static void *driver; /* dlopen handle, kept for the process's lifetime */
/* cuTensorMapEncodeTiled (CUDA 12 drivers on): only libraries with TMA
 * GEMMs (dlc_gemm_tma) need it, so a driver without it fails only those. */
typedef CUresult (*encode_tiled_fn)(void *, int, unsigned, void *, const unsigned long long *,
                                    const unsigned long long *, const unsigned *,
                                    const unsigned *, int, int, int, int);
static encode_tiled_fn encode_tiled;
enum { TENSOR_MAP_BYTES = 128, TENSOR_MAP_TFLOAT32 = 11, TENSOR_MAP_SWIZZLE_128B = 3,
       TENSOR_MAP_L2_256B = 3 };

struct dlc_gpu_state {
  CUdevice device;
  CUcontext context;
  CUmodule *modules; /* one per kernel image */
  CUstream stream;
  CUgraph graph;
  CUgraphExec exec;
  CUdeviceptr base; /* [weights | arena | inputs | outputs] */
  CUdeviceptr *input_ptr, *output_ptr; /* the inputs' and outputs' slots in base */
  /* Where the captured kernels read each input and write each output: its
   * slot, or a caller's device memory used in place (dlc_gpu_run). */
  CUdeviceptr *bound_in, *bound_out;
  unsigned char *tensor_maps; /* the encoded TMA maps, 64-byte aligned */
  CUdeviceptr *arg_values; /* every launch's argument values, in order */
  void **arg_slots;        /* pointers to them, as cuLaunchKernel wants */
  CUfunction *functions;   /* per launch */
  int synchronous;         /* DLC_CUDA_SYNC=1: no graph, a sync after each kernel */
};

static int fail(char *error, size_t size, const char *what, CUresult rc) {
  const char *name = "unknown error";
  if (cu.cuGetErrorName)
    cu.cuGetErrorName(rc, &name);
  snprintf(error, size, "CUDA: %s failed: %s (%d)", what, name, rc);
  return DLC_ERROR_DEVICE;
}

static int load_driver(char *error, size_t size) {
  if (driver)
    return DLC_OK;
  /* DLC_CUDA_DRIVER names another driver library (a counting shim in the
   * allocation test, or a driver outside the loader's path). */
  const char *path = getenv("DLC_CUDA_DRIVER");
  void *h = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(error, size,
             "CUDA: cannot load the driver (%s): this library runs on an NVIDIA GPU and needs "
             "its driver installed",
             dlerror());
    return DLC_ERROR_DEVICE;
  }
#define DLC_CUDA_RESOLVE(field, symbol, params)                                               \
  *(void **)&cu.field = dlsym(h, symbol);                                                     \
  if (!cu.field) {                                                                             \
    snprintf(error, size, "CUDA: the driver has no %s (too old?)", symbol);                   \
    dlclose(h);                                                                                \
    memset(&cu, 0, sizeof(cu));                                                                \
    return DLC_ERROR_DEVICE;                                                                   \
  }
  DLC_CUDA_FUNCTIONS(DLC_CUDA_RESOLVE)
#undef DLC_CUDA_RESOLVE
  *(void **)&encode_tiled = dlsym(h, "cuTensorMapEncodeTiled");
  driver = h;
  return DLC_OK;
}

static int64_t align256(int64_t v) { return (v + 255) / 256 * 256; }

/* Byte offsets of the parts of the one device buffer. */
static int64_t arena_offset(void) { return align256(dlc_meta.gpu->weights_bytes); }
static int64_t io_offset(void) { return arena_offset() + align256(dlc_meta.arena_bytes); }

#define CHECK(call, what)                                                                      \
  do {                                                                                         \
    CUresult rc_ = (call);                                                                     \
    if (rc_) {                                                                                 \
      int code_ = fail(error, size, what, rc_);                                                \
      dlc_gpu_destroy(g);                                                                      \
      return code_;                                                                            \
    }                                                                                          \
  } while (0)

/* A buffer argument's device address (base plus byte offset), or an
 * integer argument's value. */
static CUdeviceptr arg_pointer(const struct dlc_gpu_state *g, const dlc_gpu_arg *arg) {
  CUdeviceptr base = arg->kind == DLC_GPU_ARG_INPUT     ? g->bound_in[arg->index]
                     : arg->kind == DLC_GPU_ARG_OUTPUT  ? g->bound_out[arg->index]
                     : arg->kind == DLC_GPU_ARG_ARENA   ? g->base + arena_offset()
                     : arg->kind == DLC_GPU_ARG_WEIGHTS ? g->base
                                                        : 0;
  return base + (CUdeviceptr)arg->value;
}

/* Encodes the TMA tensor maps (dlc_gemm_tma's, dlc_conv_tma's) and captures
 * the launch list as a CUDA graph over the bound pointers: at create, and
 * again when dlc_gpu_run binds other device memory in place. Kernel
 * arguments are fixed device pointers, so the list is replayed as is. */
static int capture(struct dlc_gpu_state *g, char *error, size_t size) {
  const dlc_gpu_meta *meta = dlc_meta.gpu;
  for (int i = 0; i < meta->num_tensor_maps; ++i) {
    const dlc_gpu_tensor_map *t = &meta->tensor_maps[i];
    unsigned long long dims[4], strides[3];
    unsigned box[4], element_strides[4];
    for (int d = 0; d < t->rank; ++d) {
      dims[d] = (unsigned long long)t->dims[d];
      box[d] = (unsigned)t->box[d];
      element_strides[d] = (unsigned)t->element_strides[d];
      if (d > 0)
        strides[d - 1] = (unsigned long long)t->strides[d - 1];
    }
    CUresult r = encode_tiled(g->tensor_maps + (size_t)i * TENSOR_MAP_BYTES, TENSOR_MAP_TFLOAT32,
                              (unsigned)t->rank, (void *)arg_pointer(g, &t->buffer), dims,
                              strides, box, element_strides, 0, TENSOR_MAP_SWIZZLE_128B,
                              TENSOR_MAP_L2_256B, 0);
    if (r)
      return fail(error, size, "encoding a TMA tensor map (cuTensorMapEncodeTiled)", r);
  }
  CUresult r = cu.cuStreamBeginCapture(g->stream, STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (r)
    return fail(error, size, "cuStreamBeginCapture", r);
  int64_t k = 0;
  for (int i = 0; i < meta->num_launches; ++i) {
    const dlc_gpu_launch *l = &meta->launches[i];
    void **params = g->arg_slots + k;
    for (int a = 0; a < l->num_args; ++a, ++k) {
      const dlc_gpu_arg *arg = &l->args[a];
      /* An integer parameter reads its bytes from the same 8-byte slot; a
       * tensor map (128 bytes, by value) from its encoded copy. */
      g->arg_values[k] = arg_pointer(g, arg);
      g->arg_slots[k] = arg->kind == DLC_GPU_ARG_TENSOR_MAP
                            ? (void *)(g->tensor_maps + (size_t)arg->index * TENSOR_MAP_BYTES)
                            : (void *)&g->arg_values[k];
    }
    r = cu.cuLaunchKernel(g->functions[i], l->grid[0], l->grid[1], l->grid[2], l->block[0],
                          l->block[1], l->block[2], l->shared_bytes, g->stream, params, NULL);
    if (r) {
      CUgraph discarded;
      if (!cu.cuStreamEndCapture(g->stream, &discarded))
        cu.cuGraphDestroy(discarded);
      char what[256];
      snprintf(what, sizeof(what), "launching kernel %s (#%d)", l->kernel, i);
      return fail(error, size, what, r);
    }
  }
  CUgraph graph;
  r = cu.cuStreamEndCapture(g->stream, &graph);
  if (r)
    return fail(error, size, "cuStreamEndCapture", r);
  if (g->exec)
    cu.cuGraphExecDestroy(g->exec);
  if (g->graph)
    cu.cuGraphDestroy(g->graph);
  g->exec = NULL;
  g->graph = graph;
  r = cu.cuGraphInstantiate(&g->exec, g->graph, 0);
  return r ? fail(error, size, "cuGraphInstantiate", r) : DLC_OK;
}

int dlc_gpu_create(struct dlc_gpu_state **out, char *error, size_t size) {
  *out = NULL;
  int rc = load_driver(error, size);
  if (rc)
    return rc;
  const dlc_gpu_meta *meta = dlc_meta.gpu;
  int ni = dlc_meta.num_inputs, no = dlc_meta.num_outputs;
  int64_t total_args = 0;
  for (int i = 0; i < meta->num_launches; ++i)
    total_args += meta->launches[i].num_args;
  struct dlc_gpu_state *g = calloc(1, sizeof(*g));
  if (g) {
    g->input_ptr = calloc((size_t)ni + 1, sizeof(CUdeviceptr));
    g->output_ptr = calloc((size_t)no + 1, sizeof(CUdeviceptr));
    g->bound_in = calloc((size_t)ni + 1, sizeof(CUdeviceptr));
    g->bound_out = calloc((size_t)no + 1, sizeof(CUdeviceptr));
    g->arg_values = calloc((size_t)total_args + 1, sizeof(CUdeviceptr));
    g->arg_slots = calloc((size_t)total_args + 1, sizeof(void *));
    g->modules = calloc((size_t)meta->num_images + 1, sizeof(CUmodule));
    g->functions = calloc((size_t)meta->num_launches + 1, sizeof(CUfunction));
    g->tensor_maps = aligned_alloc(64, ((size_t)meta->num_tensor_maps + 1) * TENSOR_MAP_BYTES);
  }
  if (!g || !g->input_ptr || !g->output_ptr || !g->bound_in || !g->bound_out ||
      !g->arg_values || !g->arg_slots || !g->modules || !g->functions || !g->tensor_maps) {
    dlc_gpu_destroy(g);
    snprintf(error, size, "dlc_create: out of host memory");
    return DLC_ERROR_OUT_OF_MEMORY;
  }
  g->device = -1;
  CHECK(cu.cuInit(0), "cuInit");
  CHECK(cu.cuDeviceGet(&g->device, 0), "cuDeviceGet(0)");
  CHECK(cu.cuDevicePrimaryCtxRetain(&g->context, g->device), "cuDevicePrimaryCtxRetain");
  CHECK(cu.cuCtxSetCurrent(g->context), "cuCtxSetCurrent");
  for (int i = 0; i < meta->num_images; ++i)
    CHECK(cu.cuModuleLoadData(&g->modules[i], meta->images[i]),
          "loading the kernels (cuModuleLoadData)");

  int64_t bytes = io_offset();
  for (int i = 0; i < ni; ++i)
    bytes += align256(dlc_meta.inputs[i].bytes);
  for (int i = 0; i < no; ++i)
    bytes += align256(dlc_meta.outputs[i].bytes);
  CHECK(cu.cuMemAlloc(&g->base, (size_t)bytes), "allocating the device buffer (cuMemAlloc)");
  CHECK(cu.cuStreamCreate(&g->stream, STREAM_NON_BLOCKING), "cuStreamCreate");
  CHECK(cu.cuMemcpyHtoDAsync(g->base, meta->weights, (size_t)meta->weights_bytes, g->stream),
        "uploading the weights");
  int64_t at = io_offset();
  for (int i = 0; i < ni; ++i, at += align256(dlc_meta.inputs[i - 1].bytes))
    g->input_ptr[i] = g->base + at;
  for (int i = 0; i < no; ++i, at += align256(dlc_meta.outputs[i - 1].bytes))
    g->output_ptr[i] = g->base + at;

  for (int i = 0; i < ni; ++i)
    g->bound_in[i] = g->input_ptr[i];
  for (int i = 0; i < no; ++i)
    g->bound_out[i] = g->output_ptr[i];
  if (meta->num_tensor_maps && !encode_tiled) {
    dlc_gpu_destroy(g);
    snprintf(error, size, "CUDA: the driver has no cuTensorMapEncodeTiled (too old for this "
                          "library's TMA kernels; CUDA 12 or later)");
    return DLC_ERROR_DEVICE;
  }
  for (int i = 0; i < meta->num_launches; ++i) {
    const dlc_gpu_launch *l = &meta->launches[i];
    CUresult r = cu.cuModuleGetFunction(&g->functions[i], g->modules[l->image], l->kernel);
    /* Over 48 KiB of dynamic shared memory needs the kernel's consent. */
    if (!r && l->shared_bytes > 48 * 1024)
      r = cu.cuFuncSetAttribute(g->functions[i], FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                (int)l->shared_bytes);
    if (r) {
      char what[256];
      snprintf(what, sizeof(what), "loading kernel %s (#%d)", l->kernel, i);
      CHECK(r, what);
    }
  }
  rc = capture(g, error, size);
  if (rc) {
    dlc_gpu_destroy(g);
    return rc;
  }
  CHECK(cu.cuStreamSynchronize(g->stream), "uploading the weights (cuStreamSynchronize)");
  const char *sync = getenv("DLC_CUDA_SYNC");
  g->synchronous = sync && *sync && *sync != '0';
  *out = g;
  return DLC_OK;
}

/* A caller's pointer is either host memory (copied with HtoD/DtoH) or
 * device memory of the same context (copied on the device). */
static int is_device_pointer(const void *p) {
  unsigned int type = 0;
  return cu.cuPointerGetAttribute(&type, POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)p) == 0 &&
         type == MEMORYTYPE_DEVICE;
}

#undef CHECK
#define CHECK(call, what)                                                                      \
  do {                                                                                         \
    CUresult rc_ = (call);                                                                     \
    if (rc_)                                                                                   \
      return fail(error, size, what, rc_);                                                     \
  } while (0)

/* Whether device memory [p, p + bytes) can be read or written in place by
 * the kernels: aligned as the slots are (256 bytes; TMA wants 16) and, for
 * output `written` (-1: an input), sharing no byte with any other caller
 * buffer (the same memory passed as an input too included). */
static int in_place(const void *p, int64_t bytes, int written, void *const *inputs,
                    void *const *outputs) {
  if ((uintptr_t)p % 256 || !is_device_pointer(p))
    return 0;
  if (written < 0)
    return 1;
  int ni = dlc_meta.num_inputs;
  uintptr_t a = (uintptr_t)p;
  for (int j = 0; j < ni + dlc_meta.num_outputs; ++j) {
    if (j == ni + written)
      continue;
    uintptr_t b = (uintptr_t)(j < ni ? inputs[j] : outputs[j - ni]);
    int64_t n = j < ni ? dlc_meta.inputs[j].bytes : dlc_meta.outputs[j - ni].bytes;
    if (a < b + (uintptr_t)n && b < a + (uintptr_t)bytes)
      return 0;
  }
  return 1;
}

int dlc_gpu_run(struct dlc_gpu_state *g, void *const *inputs, void *const *outputs,
                char *error, size_t size) {
  CHECK(cu.cuCtxSetCurrent(g->context), "cuCtxSetCurrent");
  /* Device memory of the caller's is read and written in place where it
   * can be (no copies: 3 x 64 MB of them had taken a 4096^3 MatMul from
   * 0.40 to 0.56 ms); the graph is captured again when that memory
   * changes. Host memory, and device memory that cannot be, goes through
   * the slots. */
  int rebind = 0;
  for (int i = 0; i < dlc_meta.num_inputs; ++i) {
    size_t n = (size_t)dlc_meta.inputs[i].bytes;
    CUdeviceptr want = g->input_ptr[i];
    if (in_place(inputs[i], (int64_t)n, -1, inputs, outputs))
      want = (CUdeviceptr)inputs[i];
    else if (is_device_pointer(inputs[i]))
      CHECK(cu.cuMemcpyDtoDAsync(g->input_ptr[i], (CUdeviceptr)inputs[i], n, g->stream),
            "copying an input");
    else
      CHECK(cu.cuMemcpyHtoDAsync(g->input_ptr[i], inputs[i], n, g->stream), "copying an input");
    rebind |= want != g->bound_in[i];
    g->bound_in[i] = want;
  }
  for (int i = 0; i < dlc_meta.num_outputs; ++i) {
    CUdeviceptr want = in_place(outputs[i], dlc_meta.outputs[i].bytes, i, inputs, outputs)
                           ? (CUdeviceptr)outputs[i]
                           : g->output_ptr[i];
    rebind |= want != g->bound_out[i];
    g->bound_out[i] = want;
  }
  if (rebind || !g->exec) { /* or a capture that failed before */
    int rc = capture(g, error, size);
    if (rc)
      return rc;
  }
  if (g->synchronous) {
    /* Debugging: each kernel on its own, so a fault names its kernel. */
    const dlc_gpu_meta *meta = dlc_meta.gpu;
    int64_t k = 0;
    for (int i = 0; i < meta->num_launches; ++i) {
      const dlc_gpu_launch *l = &meta->launches[i];
      char what[256];
      snprintf(what, sizeof(what), "kernel %s (#%d of %d)", l->kernel, i, meta->num_launches);
      CHECK(cu.cuLaunchKernel(g->functions[i], l->grid[0], l->grid[1], l->grid[2], l->block[0],
                              l->block[1], l->block[2], l->shared_bytes, g->stream,
                              g->arg_slots + k, NULL),
            what);
      CHECK(cu.cuStreamSynchronize(g->stream), what);
      k += l->num_args;
    }
  } else {
    CHECK(cu.cuGraphLaunch(g->exec, g->stream),
          "launching the model's kernels (cuGraphLaunch; DLC_CUDA_SYNC=1 runs them one by one "
          "and names a failing kernel)");
  }
  for (int i = 0; i < dlc_meta.num_outputs; ++i) {
    size_t n = (size_t)dlc_meta.outputs[i].bytes;
    if (g->bound_out[i] == (CUdeviceptr)outputs[i])
      continue; /* written in place */
    if (is_device_pointer(outputs[i]))
      CHECK(cu.cuMemcpyDtoDAsync((CUdeviceptr)outputs[i], g->output_ptr[i], n, g->stream),
            "copying an output");
    else
      CHECK(cu.cuMemcpyDtoHAsync(outputs[i], g->output_ptr[i], n, g->stream),
            "copying an output");
  }
  CHECK(cu.cuStreamSynchronize(g->stream),
        g->synchronous ? "copying the outputs"
                       : "running the model's kernels (DLC_CUDA_SYNC=1 names a failing kernel)");
  return DLC_OK;
}

void dlc_gpu_destroy(struct dlc_gpu_state *g) {
  if (!g)
    return;
  if (g->exec)
    cu.cuGraphExecDestroy(g->exec);
  if (g->graph)
    cu.cuGraphDestroy(g->graph);
  if (g->stream)
    cu.cuStreamDestroy(g->stream);
  if (g->base)
    cu.cuMemFree(g->base);
  for (int i = 0; g->modules && i < dlc_meta.gpu->num_images; ++i)
    if (g->modules[i])
      cu.cuModuleUnload(g->modules[i]);
  free(g->modules);
  if (g->context)
    cu.cuDevicePrimaryCtxRelease(g->device);
  free(g->input_ptr);
  free(g->output_ptr);
  free(g->bound_in);
  free(g->bound_out);
  free(g->arg_values);
  free(g->arg_slots);
  free(g->functions);
  free(g->tensor_maps);
  free(g);
}
