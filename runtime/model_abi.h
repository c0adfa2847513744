/*===- model_abi.h - what `dlc compile` emits for the runtime to read -----===*
 *
 * dlc writes these tables (model_meta.c, compiled and linked next to the
 * generated object); the runtime validates inputs against them. Hidden
 * symbols: each model library sees only its own.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_MODEL_ABI_H
#define DLC_RUNTIME_MODEL_ABI_H

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

typedef struct dlc_model_meta {
  int32_t num_inputs, num_outputs;
  const dlc_tensor_desc *inputs, *outputs;
  int64_t arena_bytes; /* inference and train step share the arena */
  const char *signature_json;
  int32_t num_params; /* 0 unless trainable: then weights are parameters */
  const dlc_tensor_desc *params;
  const void *const *param_init; /* initial bytes of each parameter */
  const dlc_train_meta *train;   /* NULL: an inference-only library */
} dlc_model_meta;

extern DLC_HIDDEN const dlc_model_meta dlc_meta;

/* The generated code: args = inputs, then parameters (trainable builds),
 * then outputs, then the arena, then the thread pool (passed back to
 * dlc_parallel_for). */
DLC_HIDDEN void dlc_model_entry(void **args);

#endif
