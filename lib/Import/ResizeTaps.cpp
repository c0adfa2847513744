//===- ResizeTaps.cpp - per-axis sampling weights of ONNX Resize ----------===//
#include "lib/Import/ResizeTaps.h"

#include <algorithm>
#include <cmath>

using namespace dlc::import;

namespace {
/// The source coordinate of output y (ONNX's coordinate_transformation_mode).
bool sourceCoordinate(const std::string &mode, double y, double scale, int64_t in,
                      int64_t outInt, double roiStart, double roiEnd, double &x) {
  double out = scale * in;
  if (mode == "align_corners")
    x = out == 1 ? 0.0 : y * (in - 1) / (out - 1);
  else if (mode == "asymmetric")
    x = y / scale;
  else if (mode == "tf_crop_and_resize")
    x = (out == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                  : y * (roiEnd - roiStart) * (in - 1) / (out - 1)) +
        roiStart * (in - 1);
  else if (mode == "pytorch_half_pixel")
    x = out == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  else if (mode == "half_pixel")
    x = (y + 0.5) / scale - 0.5;
  else if (mode == "half_pixel_symmetric")
    x = in / 2.0 * (1 - outInt / out) + (y + 0.5) / scale - 0.5;
  else
    return false;
  return true;
}

double cubic(double x, double a) {
  x = std::fabs(x);
  if (x <= 1)
    return (a + 2) * x * x * x - (a + 3) * x * x + 1;
  if (x < 2)
    return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
  return 0;
}

/// Weights of the neighbours of a source coordinate whose distance past
/// the left neighbour is `ratio` in (0, 1].
std::vector<double> coefficients(const ResizeMode &m, double ratio, double scale) {
  if (m.mode == "nearest") {
    if (ratio == 1.0)
      return {0, 1};
    if (m.nearest == "round_prefer_ceil")
      return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (m.nearest == "floor")
      return {1, 0};
    if (m.nearest == "ceil")
      return {0, 1};
    return {double(ratio <= 0.5), double(ratio > 0.5)}; // round_prefer_floor
  }
  std::vector<double> c;
  if (m.mode == "linear" && !m.antialias)
    return {1 - ratio, ratio};
  if (m.mode == "cubic" && !m.antialias) {
    double a = m.cubicA, r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
    return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
            ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1,
            ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a};
  }
  // Antialiasing widens the filter by 1/scale when downsampling.
  scale = std::min(scale, 1.0);
  double sum = 0;
  if (m.mode == "linear") {
    int64_t start = (int64_t)(std::floor(-1 / scale) + 1), footprint = 2 - 2 * start;
    for (int64_t i = start; i < start + footprint; ++i)
      c.push_back(std::clamp(1 - std::fabs((i - ratio) * scale), 0.0, 1.0));
  } else {
    int64_t start = (int64_t)(std::floor(-2 / scale) + 1), end = 2 - start;
    for (int64_t i = start; i < end; ++i)
      c.push_back(cubic(scale * (i - ratio), m.cubicA));
  }
  for (double v : c)
    sum += v;
  for (double &v : c)
    v /= sum;
  return c;
}
} // namespace

std::string dlc::import::resizeAxisTaps(int64_t in, int64_t out, double scale,
                                        const ResizeMode &m, double roiStart, double roiEnd,
                                        AxisTaps &taps) {
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return "unsupported mode '" + m.mode + "'";
  if (m.mode == "nearest" && m.antialias)
    return "antialias is not defined for mode 'nearest'";
  if (!(scale > 0))
    return "scales must be positive";
  taps = AxisTaps();
  taps.extrapolate.assign(out, false);
  for (int64_t o = 0; o < out; ++o) {
    double x;
    if (!sourceCoordinate(m.coordinates, (double)o, scale, in, out, roiStart, roiEnd, x))
      return "unsupported coordinate_transformation_mode '" + m.coordinates + "'";
    if (m.coordinates == "tf_crop_and_resize")
      taps.extrapolate[o] = x < 0 || x > in - 1;
    // Prefer the left neighbour: an exact integer has ratio 1, not 0.
    double ratio = x == std::floor(x) ? 1.0 : x - std::floor(x);
    std::vector<double> c = coefficients(m, ratio, scale);
    int64_t n = (int64_t)c.size();
    if (o == 0)
      taps.n = n;
    // The n input positions nearest x (ties to the smaller), in the input
    // padded by ceil(n/2) on each side; padding repeats the edge.
    int64_t pad = (n + 1) / 2;
    double xp = x + pad, p = std::floor(xp), frac = xp - p;
    int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                : (frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1);
    int64_t start = (int64_t)p + offset - pad;
    if (m.excludeOutside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (start + k < 0 || start + k >= in)
          c[k] = 0;
        sum += c[k];
      }
      for (double &v : c)
        v /= sum == 0 ? 1 : sum;
    }
    for (int64_t k = 0; k < n; ++k) {
      taps.idx.push_back(std::clamp<int64_t>(start + k, 0, in - 1));
      taps.w.push_back(c[k]);
    }
  }
  return "";
}
