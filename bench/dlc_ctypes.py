"""The C API of a dlc-compiled library from Python (ctypes), and the timing
helper both benchmark scripts use."""
import ctypes
import os
import statistics
import time


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


def median_ms(fn, repeat=20, warmup=3):
    """Median wall time of `fn` in milliseconds, after `warmup` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


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
        `outputs` (dicts of name -> float32 array, kept alive by the caller)."""
        ins = (Tensor * len(inputs))(*[tensor(n, a) for n, a in inputs.items()])
        outs = (Tensor * len(outputs))(*[tensor(n, a) for n, a in outputs.items()])

        def call():
            if self.lib.dlc_run(self.handle, ins, len(inputs), outs, len(outputs)) != 0:
                raise RuntimeError(self.lib.dlc_last_error(self.handle).decode())
        return call

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.dlc_destroy(self.handle)


def write_report(text, path):
    """Prints a benchmark's markdown table and writes it to `path`."""
    print(text)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
