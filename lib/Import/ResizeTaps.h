//===- ResizeTaps.h - per-axis sampling weights of ONNX Resize ------------===//
//
// Resize is separable: each resized axis maps output position o to a few
// input positions with fixed weights. With static shapes those positions
// and weights are known at import, so the importer emits one gather per
// tap and a weighted sum (a gather alone for nearest). The rules follow
// ONNX's reference implementation (onnx/reference/ops/op_resize.py).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_LIB_IMPORT_RESIZETAPS_H
#define DLC_LIB_IMPORT_RESIZETAPS_H

#include <cstdint>
#include <string>
#include <vector>

namespace dlc::import {
struct ResizeMode {
  std::string mode = "nearest"; ///< nearest | linear | cubic
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
};

/// The taps of one axis: output o reads input idx[o * n + k] with weight
/// w[o * n + k]; where extrapolate[o] (tf_crop_and_resize outside the
/// input) the output is the extrapolation value instead.
struct AxisTaps {
  int64_t n = 0;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<bool> extrapolate;
};

/// Taps for an axis of `in` elements resized to `out` with `scale` (the
/// given scale, or out/in when sizes were given); roiStart/roiEnd are the
/// normalized crop of tf_crop_and_resize. Returns "" or an error.
std::string resizeAxisTaps(int64_t in, int64_t out, double scale, const ResizeMode &m,
                           double roiStart, double roiEnd, AxisTaps &taps);
} // namespace dlc::import

#endif
