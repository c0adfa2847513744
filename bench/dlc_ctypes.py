"""The C API of a dlc-compiled library from Python (ctypes), and the timing
helper both benchmark scripts use."""
import ctypes
import json
import os
import statistics
import time

import numpy as np


class Tensor(ctypes.Structure):
    """dlc_tensor from include/dlc/runtime.h."""
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


def tensor(name, array):
    """A dlc_tensor viewing a float32 numpy array (kept alive by the caller)."""
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    t = Tensor(name.encode(), 1, array.ndim, shape, array.ctypes.data)
    t._keep = shape  # the shape array lives as long as the struct
    return t


def load(path):
    """Opens a model library and declares the C API's signatures."""
    lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
    lib.dlc_create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_size_t]
    lib.dlc_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_size_t,
                            ctypes.POINTER(Tensor), ctypes.c_size_t]
    lib.dlc_set_threads.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.dlc_last_error.restype = ctypes.c_char_p
    lib.dlc_last_error.argtypes = [ctypes.c_void_p]
    lib.dlc_destroy.argtypes = [ctypes.c_void_p]
    return lib


def median_ms(fn, repeat=20, warmup=3, min_ms=0.0):
    """Median wall time of `fn` in milliseconds: `warmup` calls first, then
    `repeat` timed calls; with `min_ms`, the warm-up lasts at least a
    quarter of it and the timed calls at least all of it (a model of 20 us
    then gets thousands of calls: its first ones after create, page faults
    and cold caches, took 1.5x as long)."""
    start = time.perf_counter()
    done = 0
    while done < warmup or (time.perf_counter() - start) * 1e3 < min_ms / 4:
        fn()
        done += 1
    times = []
    start = time.perf_counter()
    while len(times) < repeat or (time.perf_counter() - start) * 1e3 < min_ms:
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


# dlc_run(handle, inputs, n_inputs, outputs, n_outputs) with pointers as integers.
RUN_PROTOTYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_void_p, ctypes.c_size_t)


class Model:
    """One created model of a compiled library, run on fixed numpy buffers:
    `with Model(path, threads) as m: call = m.runner(inputs, outputs)`."""

    def __init__(self, lib_path, threads):
        self.lib = load(lib_path)
        self.handle = ctypes.c_void_p()
        if self.lib.dlc_create(ctypes.byref(self.handle), None, 0) != 0:
            raise RuntimeError(self.lib.dlc_last_error(None).decode())
        self.lib.dlc_set_threads(self.handle, threads)

    def runner(self, inputs, outputs):
        """A no-argument callable doing one dlc_run from `inputs` into
        `outputs` (dicts of name -> array, which it keeps alive: it holds
        their addresses, and a caller that dropped an output dict once had
        dlc_run write into freed memory and crash the process).

        It calls dlc_run through a bare function pointer with its arguments
        converted to integers once, here: per call, ctypes' attribute lookup
        and argtypes conversion cost 0.35 us of the MLP's 6.8 (Zen 5), 5% of
        what is timed as the library's per-call latency."""
        ins = (Tensor * len(inputs))(*[any_tensor(n, a) for n, a in inputs.items()])
        outs = (Tensor * len(outputs))(*[any_tensor(n, a) for n, a in outputs.items()])
        run = RUN_PROTOTYPE(ctypes.cast(self.lib.dlc_run, ctypes.c_void_p).value)
        handle, n_in, n_out = self.handle.value, len(inputs), len(outputs)
        ins_at, outs_at = ctypes.addressof(ins), ctypes.addressof(outs)

        def call():
            if run(handle, ins_at, n_in, outs_at, n_out) != 0:
                raise RuntimeError(self.lib.dlc_last_error(self.handle).decode())
        # The structs the addresses point to and the arrays they view.
        call.keep = (ins, outs, dict(inputs), dict(outputs))
        return call

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.dlc_destroy(self.handle)


def model_arrays(graph, seed=0):
    """Seeded uniform [-1, 1) float32 inputs and empty outputs for an ONNX
    graph's inputs and outputs (static shapes), as name -> array dicts."""
    def dims(value_info):
        return [d.dim_value for d in value_info.type.tensor_type.shape.dim]
    rng = np.random.default_rng(seed)
    inputs = {v.name: rng.uniform(-1, 1, dims(v)).astype(np.float32) for v in graph.input}
    outputs = {v.name: np.empty(dims(v), np.float32) for v in graph.output}
    return inputs, outputs


def write_report(text, path):
    """Prints a benchmark's markdown table and writes it to `path`."""
    print(text)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


DTYPES = {np.dtype(np.float32): 1, np.dtype(np.int64): 7, np.dtype(np.float64): 11}


def any_tensor(name, array):
    """A dlc_tensor viewing a float32, float64 or int64 numpy array."""
    t = tensor(name, array)
    t.dtype = DTYPES[array.dtype]
    return t


class TrainModel(Model):
    """A created instance of a library built with `dlc compile --train`."""

    def __init__(self, lib_path, threads=0):
        super().__init__(lib_path, threads)
        lib = self.lib
        lib.dlc_train_step.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_size_t,
                                       ctypes.c_double, ctypes.POINTER(ctypes.c_double)]
        for fn in (lib.dlc_get_parameter, lib.dlc_set_parameter):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
        for fn in (lib.dlc_save_parameters, lib.dlc_load_parameters):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.dlc_signature_json.restype = ctypes.c_char_p
        self.signature = json.loads(lib.dlc_signature_json().decode())
        self.params = {p["name"]: (np.dtype(p["dtype"]), tuple(p["shape"]))
                       for p in self.signature["parameters"]}
        # Gradient-trained; the others are BatchNormalization running statistics.
        self.trainable = [p["name"] for p in self.signature["parameters"] if p["trainable"]]

    def _check(self, rc):
        if rc != 0:
            raise RuntimeError(self.lib.dlc_last_error(self.handle).decode())

    def stepper(self, inputs):
        """A callable (learning_rate) -> loss doing one dlc_train_step on the
        arrays of `inputs` (name -> array, labels included; kept alive by the
        caller, refilled in place between steps)."""
        ts = (Tensor * len(inputs))(*[any_tensor(n, a) for n, a in inputs.items()])
        loss = ctypes.c_double()

        def step(lr):
            self._check(self.lib.dlc_train_step(self.handle, ts, len(inputs), lr,
                                                ctypes.byref(loss)))
            return loss.value
        return step

    def get(self, name):
        dtype, shape = self.params[name]
        out = np.empty(shape, dtype)
        self._check(self.lib.dlc_get_parameter(self.handle, name.encode(), out.ctypes.data,
                                               out.nbytes))
        return out

    def set(self, name, value):
        dtype, shape = self.params[name]
        value = np.ascontiguousarray(value, dtype).reshape(shape)
        self._check(self.lib.dlc_set_parameter(self.handle, name.encode(), value.ctypes.data,
                                               value.nbytes))

    def save(self, path):
        self._check(self.lib.dlc_save_parameters(self.handle, path.encode()))

    def load(self, path):
        self._check(self.lib.dlc_load_parameters(self.handle, path.encode()))
