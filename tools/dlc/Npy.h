//===- Npy.h - read and write .npy files ------------------------------------===//
#ifndef DLC_TOOLS_NPY_H
#define DLC_TOOLS_NPY_H

#include "dlc/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlc {
/// A C-order array with its raw little-endian bytes.
struct NpyArray {
  int32_t dtype = kFloat32; ///< a dlc::DType code
  std::vector<int64_t> shape;
  std::vector<char> bytes;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  void allocate() { bytes.assign(numel() * dtypeBytes(dtype), 0); }
  /// Every element widened to int64 (integer and bool arrays).
  std::vector<int64_t> ints() const;
  /// Every element widened to double (float arrays).
  std::vector<double> doubles() const;
};

/// Reads a little-endian, C-order .npy file of any dtype dlc handles.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);
bool writeNpy(const std::string &path, const NpyArray &a, std::string &error);
} // namespace dlc

#endif
