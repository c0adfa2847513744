//===- Npy.h - read and write float32 .npy files --------------------------===//
#ifndef DLC_TOOLS_NPY_H
#define DLC_TOOLS_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace dlc {
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;   ///< float32 arrays
  std::vector<int64_t> ints; ///< int64/int32 arrays (readNpy with allowInts)
  bool isInt = false;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// Reads a little-endian float32 (`<f4`), C-order .npy file; with
/// `allowInts`, int64 (`<i8`) and int32 (`<i4`) arrays too, into `ints`.
bool readNpy(const std::string &path, NpyArray &out, std::string &error,
             bool allowInts = false);
bool writeNpy(const std::string &path, const NpyArray &a, std::string &error);
} // namespace dlc

#endif
