/*===- model_abi.h - what `dlc compile` emits for the runtime to read -----===*
 *
 * dlc writes these tables (model_meta.c, compiled and linked next to the
 * generated object); the runtime validates inputs against them. Hidden
 * symbols: each model library sees only its own.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_MODEL_ABI_H
#define DLC_RUNTIME_MODEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#define DLC_HIDDEN __attribute__((visibility("hidden")))

typedef struct dlc_tensor_desc {
  const char *name;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  int64_t bytes;
} dlc_tensor_desc;

/* Training builds: the train step's entry takes
 *   inputs, parameters, labels, learning rate, optimizer state,
 *   loss, updated parameters, updated state, arena, thread pool. */
typedef struct dlc_train_meta {
  int32_t num_labels, num_state;
  const dlc_tensor_desc *labels, *state;
  int32_t lr_dtype; /* the learning rate is a 0-D tensor of this dtype */
  int64_t num_classes; /* class-index labels lie in [0, num_classes); 0: not class labels */
  void (*entry)(void **args);
} dlc_train_meta;

/* CUDA builds: the host side is a launch list over one device buffer laid
 * out as [weights | arena | inputs | outputs], each part 256-byte aligned.
 * A kernel argument is a pointer into it (a buffer plus a byte offset) or
 * a 64-bit integer. */
enum {
  DLC_GPU_ARG_INPUT = 0,   /* index: which input */
  DLC_GPU_ARG_OUTPUT = 1,  /* index: which output */
  DLC_GPU_ARG_ARENA = 2,
  DLC_GPU_ARG_WEIGHTS = 3,
  DLC_GPU_ARG_I64 = 4,     /* value: the integer */
  DLC_GPU_ARG_TENSOR_MAP = 5 /* index: which of the meta's tensor maps, passed by value */
};
typedef struct dlc_gpu_arg {
  int32_t kind, index;
  int64_t value; /* buffers: byte offset; DLC_GPU_ARG_I64: the value */
} dlc_gpu_arg;
/* A TMA tensor map the runtime encodes at create (cuTensorMapEncodeTiled):
 * a `rank`-d tensor of floats from `buffer` (a buffer argument), dims[0]
 * contiguous, dimension d + 1 `strides[d]` bytes apart, in boxes spanning
 * `box` elements of which every element_strides-th is read, 128-byte
 * swizzle, data type TFLOAT32, zeros outside (dlc_gemm_tma's [rows, K]
 * operands; dlc_conv_tma's NHWC input, rank 4). */
typedef struct dlc_gpu_tensor_map {
  dlc_gpu_arg buffer;
  int32_t rank;
  int64_t dims[4], strides[3];
  int32_t box[4], element_strides[4];
} dlc_gpu_tensor_map;
typedef struct dlc_gpu_launch {
  int32_t image; /* which kernel image holds the kernel */
  const char *kernel;
  uint32_t grid[3], block[3];
  uint32_t shared_bytes; /* dynamic shared memory */
  int32_t num_args;
  const dlc_gpu_arg *args;
} dlc_gpu_launch;
typedef struct dlc_gpu_meta {
  const char *chip; /* sm_90 */
  int32_t num_images;
  const void *const *images; /* cubins, or PTX (NUL-terminated) for the driver to JIT */
  const void *weights;
  int64_t weights_bytes;
  int32_t num_launches;
  const dlc_gpu_launch *launches;
  int32_t num_tensor_maps;
  const dlc_gpu_tensor_map *tensor_maps;
} dlc_gpu_meta;

typedef struct dlc_model_meta {
  int32_t num_inputs, num_outputs;
  const dlc_tensor_desc *inputs, *outputs;
  int64_t arena_bytes; /* inference and train step share the arena */
  const char *signature_json;
  int32_t num_params; /* 0 unless trainable: then weights are parameters */
  const dlc_tensor_desc *params;
  const void *const *param_init; /* initial bytes of each parameter */
  const dlc_train_meta *train;   /* NULL: an inference-only library */
  void (*entry)(void **args);    /* the CPU code; NULL in CUDA builds */
  const dlc_gpu_meta *gpu;       /* NULL in CPU builds */
  /* > 1: the entry computes one image of a batch-separable model (its
   * tensors above keep the batch); the runtime calls it batch_runs times,
   * each input and output advanced by 1/batch_runs of its bytes. */
  int64_t batch_runs;
  /* With batch_runs > 1, non-NULL where the model ends in ops on the whole
   * batch (a classifier, late layers: weights that an image at a time
   * would read once per image): each image's run writes its share of a
   * tail_input_bytes buffer instead of the output, and tail_entry(args =
   * that buffer, the outputs, the arena, the pool) then computes the
   * outputs once. */
  void (*tail_entry)(void **args);
  int64_t tail_input_bytes;
  /* With batch_runs > 1, the bytes one image's run needs of an arena (its
   * plan alone): the arenas of images run side by side past the first,
   * which runs on the model's, whose size also covers the tail. */
  int64_t image_arena_bytes;
} dlc_model_meta;

extern DLC_HIDDEN const dlc_model_meta dlc_meta;

/* The generated code: args = inputs, then parameters (trainable builds),
 * then outputs, then the arena, then the thread pool (passed back to
 * dlc_parallel_for). */
DLC_HIDDEN void dlc_model_entry(void **args);

/* The CUDA part of the runtime (cuda.c): the driver is dlopen'ed at create. */
struct dlc_gpu_state;
int dlc_gpu_create(struct dlc_gpu_state **out, char *error, size_t error_size);
int dlc_gpu_run(struct dlc_gpu_state *g, void *const *inputs, void *const *outputs,
                char *error, size_t error_size);
void dlc_gpu_destroy(struct dlc_gpu_state *g);

#endif
