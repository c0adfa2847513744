//===- ConstTensor.h - tensors known while importing ----------------------===//
//
// Weights, Constant nodes, bound inputs and the shape computations that
// exporters emit (Shape -> Gather -> Concat -> Reshape, function bodies'
// rank and size arithmetic) are evaluated here, at import, so that the
// program reaching the dialect has static shapes.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_LIB_IMPORT_CONSTTENSOR_H
#define DLC_LIB_IMPORT_CONSTTENSOR_H

#include "dlc/DType.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace dlc::import {
/// A constant known at import time.
struct ConstTensor {
  int32_t dtype = kFloat32; ///< a dlc::DType code
  std::vector<int64_t> shape;
  std::vector<double> f;  ///< float dtypes
  std::vector<int64_t> i; ///< integer and bool dtypes (uint64: the bit pattern)
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  bool isInt() const { return !dtypeIsFloat(dtype); }
  /// Element k as a double (unsigned values as unsigned).
  double asDouble(int64_t k) const {
    if (!isInt())
      return f[k];
    return dtypeIsUnsigned(dtype) ? (double)(uint64_t)i[k] : (double)i[k];
  }
};

template <typename T>
T loadLE(const char *p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

/// The value of a 16-bit float's bits (IEEE half or bfloat16).
double halfToDouble(uint16_t bits, bool bfloat);

/// `c`'s elements in `to`'s C layout (bool as one byte each), converting
/// values as ONNX Cast does (integers wrap, floats round to nearest even).
std::vector<char> packConst(const ConstTensor &c, int32_t to);

/// ONNX Cast of a constant.
ConstTensor castConst(const ConstTensor &c, int32_t to);

/// ONNX elementwise op `op` on constant inputs with numpy broadcasting:
/// arithmetic, comparisons, logic, Where and simple unary math. Returns
/// nullopt for ops it does not evaluate; sets `error` for invalid inputs
/// (integer division by zero, shapes that do not broadcast).
std::optional<ConstTensor> evalElementwise(const std::string &op,
                                           const std::vector<const ConstTensor *> &in,
                                           bool fmod, std::string &error);
} // namespace dlc::import

#endif
