/*===- dlc/runtime.h - C API of a library built by `dlc compile` ----------===*
 *
 * Each compiled model is one shared library exporting these functions. The
 * library owns nothing global but its read-only weights: every dlc_model has
 * its own arena (one block, sized at compile time), and dlc_run allocates
 * nothing. Two different model libraries can be loaded into one process:
 * each resolves its internals to itself.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_H
#define DLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dlc_status {
  DLC_OK = 0,
  DLC_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad count, misaligned arena */
  DLC_ERROR_NAME = 2,             /* unknown or missing input/output name */
  DLC_ERROR_SHAPE = 3,            /* rank or dims differ from the signature */
  DLC_ERROR_DTYPE = 4,            /* element type differs from the signature */
  DLC_ERROR_OUT_OF_MEMORY = 5,    /* dlc_create could not allocate the arena */
  DLC_ERROR_NOT_TRAINABLE = 6,    /* a training call on a library built without --train */
  DLC_ERROR_IO = 7,               /* a parameter file could not be read or written */
  DLC_ERROR_DEVICE = 8            /* CUDA builds: no driver or GPU, or a CUDA call failed */
} dlc_status;

/* Element types, numbered as ONNX's TensorProto. bool is one byte (0 or 1). */
typedef enum dlc_dtype {
  DLC_FLOAT32 = 1,
  DLC_UINT8 = 2,
  DLC_INT8 = 3,
  DLC_UINT16 = 4,
  DLC_INT16 = 5,
  DLC_INT32 = 6,
  DLC_INT64 = 7,
  DLC_BOOL = 9,
  DLC_FLOAT16 = 10,
  DLC_FLOAT64 = 11,
  DLC_UINT32 = 12,
  DLC_UINT64 = 13,
  DLC_BFLOAT16 = 16
} dlc_dtype;

/* A tensor passed to or from dlc_run: dense, row-major, caller-owned. */
typedef struct dlc_tensor {
  const char *name;
  int32_t dtype; /* dlc_dtype */
  int32_t rank;
  const int64_t *shape;
  void *data;
} dlc_tensor;

typedef struct dlc_model dlc_model;

/* Bytes of arena one model instance needs (64-byte aligned memory). */
size_t dlc_arena_bytes(void);

/* Creates an instance. With arena == NULL the arena is allocated here, once;
 * otherwise the caller's memory is used (at least dlc_arena_bytes() bytes,
 * 64-byte aligned) and must outlive the instance. A batch-separable library
 * (`dlc inspect`: "run one at a time") has a one-image arena and also
 * allocates here, once, one more arena per extra thread, so that images
 * run side by side (at most min(cores, batch) - 1). */
int dlc_create(dlc_model **out, void *arena, size_t arena_bytes);

/* Runs the model. Inputs and outputs are matched by name; each must have the
 * signature's dtype and shape, and no output may overlap an input, another
 * output or the arena. Returns DLC_OK or an error code, with the message in
 * dlc_last_error(model). Allocates no memory. Scratch a parallel loop's
 * iterations need each (a conv's column block, at most 256 KB) is on the
 * stack of the thread that runs them, the caller's included. Denormal
 * floats count as zero while it runs (x86's MXCSR FTZ and DAZ, set on the
 * calling thread and restored before it returns): on Intel cores they
 * slow arithmetic about 100x. dlc_train_step does the same. A model whose
 * weights nearly fit one core's L2 runs its parallel loops back to front
 * on every other call (dlc-alternate-sweeps): the results are the same
 * bits either way. */
int dlc_run(dlc_model *model, const dlc_tensor *inputs, size_t num_inputs,
            dlc_tensor *outputs, size_t num_outputs);

/* Threads dlc_run may use, the caller's included (0 = all cores, the
 * default). The pool is created once, by dlc_create. */
int dlc_set_threads(dlc_model *model, int threads);

/* Inputs, outputs, target and memory plan as a JSON document. */
const char *dlc_signature_json(void);

/* Message of the last failed call on `model` (NULL: the last dlc_create). */
const char *dlc_last_error(const dlc_model *model);

void dlc_destroy(dlc_model *model);

/*--- Training builds (`dlc compile --train`) --------------------------------
 * The library's weights are parameters: each instance keeps them, with the
 * optimizer's state (momentum, Adam moments), in a persistent region made
 * at dlc_create from the compiled-in initial values. dlc_run uses the
 * current parameters. The region holds two sets; a train step reads one and
 * writes the other, then they swap (no copy, no allocation). */

/* One step of forward, backward and optimizer update on a batch. `inputs`
 * holds the model's inputs and its labels (named "labels": int64 class
 * indices [N] for softmax-cross-entropy, the output's shape for mse),
 * matched by name. Writes the batch's mean loss to *loss (may be NULL). */
int dlc_train_step(dlc_model *model, const dlc_tensor *inputs, size_t num_inputs,
                   double learning_rate, double *loss);

/* Copies a parameter's current value out or in (`bytes` must be its size;
 * names, dtypes and shapes are in dlc_signature_json()'s "parameters"). */
int dlc_get_parameter(dlc_model *model, const char *name, void *data, size_t bytes);
int dlc_set_parameter(dlc_model *model, const char *name, const void *data, size_t bytes);

/* Writes every parameter to `path` (a new file renamed over the old one, so
 * an interrupted save leaves the previous file intact), or reads them back.
 * Loading checks every name, dtype and shape and changes nothing unless the
 * whole file matches. Format: "DLCPARM1", uint32 count, then per tensor:
 * uint32 name length, name, int32 dtype, int32 rank, int64 dims[rank],
 * uint64 byte count, data (little-endian). */
int dlc_save_parameters(dlc_model *model, const char *path);
int dlc_load_parameters(dlc_model *model, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* DLC_RUNTIME_H */
