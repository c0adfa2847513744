//===- ConstTensor.cpp - evaluating constants while importing -------------===//
#include "lib/Import/ConstTensor.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <map>

using namespace dlc;
using namespace dlc::import;
using llvm::APFloat;
using llvm::APInt;

double dlc::import::halfToDouble(uint16_t bits, bool bfloat) {
  return APFloat(bfloat ? APFloat::BFloat() : APFloat::IEEEhalf(), APInt(16, bits))
      .convertToDouble();
}

/// `c`'s elements in `to`'s C layout (bool as one byte each), converting
/// values as ONNX Cast does.
std::vector<char> dlc::import::packConst(const ConstTensor &c, int32_t to) {
  int64_t n = c.numel(), w = dlc::dtypeBytes(to);
  std::vector<char> out(n * w);
  for (int64_t k = 0; k < n; ++k) {
    char *p = out.data() + k * w;
    double f = c.isInt() ? (dlc::dtypeIsUnsigned(c.dtype) ? (double)(uint64_t)c.i[k] : (double)c.i[k])
                         : c.f[k];
    int64_t i = c.isInt() ? c.i[k] : (std::isfinite(f) ? (int64_t)f : 0);
    switch (to) {
    case dlc::kFloat32: { float v = f; memcpy(p, &v, 4); break; }
    case dlc::kFloat64: memcpy(p, &f, 8); break;
    case dlc::kFloat16:
    case dlc::kBFloat16: {
      APFloat v(f);
      bool lost;
      v.convert(to == dlc::kFloat16 ? APFloat::IEEEhalf() : APFloat::BFloat(),
                APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = v.bitcastToAPInt().getZExtValue();
      memcpy(p, &bits, 2);
      break;
    }
    case dlc::kBool: *p = c.isInt() ? i != 0 : f != 0; break;
    default: memcpy(p, &i, w); break; // little-endian: the low bytes (wraps)
    }
  }
  return out;
}

/// ONNX Cast of a constant, done at import.
ConstTensor dlc::import::castConst(const ConstTensor &c, int32_t to) {
  ConstTensor r;
  r.dtype = to;
  r.shape = c.shape;
  std::vector<char> bytes = packConst(c, to);
  int64_t n = c.numel(), w = dlc::dtypeBytes(to);
  for (int64_t k = 0; k < n; ++k) {
    const char *p = bytes.data() + k * w;
    switch (to) {
    case dlc::kFloat32: r.f.push_back(loadLE<float>(p)); break;
    case dlc::kFloat64: r.f.push_back(loadLE<double>(p)); break;
    case dlc::kFloat16: case dlc::kBFloat16:
      r.f.push_back(halfToDouble(loadLE<uint16_t>(p), to == dlc::kBFloat16));
      break;
    default: r.i.push_back(loadInteger(to, p)); break;
    }
  }
  return r;
}

namespace {
/// numpy broadcast of the inputs' shapes; false when they do not broadcast.
bool broadcastShape(const std::vector<const ConstTensor *> &in, std::vector<int64_t> &out) {
  size_t rank = 0;
  for (auto *c : in)
    rank = std::max(rank, c->shape.size());
  out.assign(rank, 1);
  for (auto *c : in)
    for (size_t k = 0; k < c->shape.size(); ++k) {
      int64_t &o = out[rank - c->shape.size() + k], d = c->shape[k];
      if (d != o && d != 1 && o != 1)
        return false;
      if (d != 1)
        o = d;
    }
  return true;
}

/// The flat index into `c` of output element `flat` of shape `out`.
int64_t sourceIndex(const ConstTensor &c, const std::vector<int64_t> &out, int64_t flat) {
  int64_t idx = 0, stride = 1;
  size_t off = out.size() - c.shape.size();
  for (size_t k = out.size(); k-- > 0;) {
    int64_t coord = flat % out[k];
    flat /= out[k];
    if (k >= off) {
      int64_t d = c.shape[k - off];
      idx += (d == 1 ? 0 : coord) * stride;
      stride *= d;
    }
  }
  return idx;
}
} // namespace

std::optional<ConstTensor> dlc::import::evalElementwise(const std::string &op,
                                                        const std::vector<const ConstTensor *> &in,
                                                        bool fmod, std::string &error) {
  static const std::map<std::string, int> arity = {
      {"Add", 2}, {"Sub", 2}, {"Mul", 2}, {"Div", 2}, {"Mod", 2}, {"Pow", 2},
      {"Equal", 2}, {"Less", 2}, {"Greater", 2}, {"LessOrEqual", 2}, {"GreaterOrEqual", 2},
      {"And", 2}, {"Or", 2}, {"Xor", 2}, {"Max", 2}, {"Min", 2}, {"Where", 3},
      {"Not", 1}, {"Neg", 1}, {"Abs", 1}, {"Sqrt", 1}, {"Reciprocal", 1}, {"Ceil", 1},
      {"Floor", 1}, {"Exp", 1}, {"Log", 1}, {"Sign", 1}};
  auto it = arity.find(op);
  if (it == arity.end() || (int)in.size() != it->second)
    return std::nullopt;
  for (auto *c : in)
    if (!c)
      return std::nullopt;
  ConstTensor r;
  if (!broadcastShape(in, r.shape)) {
    error = "input shapes do not broadcast";
    return std::nullopt;
  }
  bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                 op == "GreaterOrEqual";
  const ConstTensor &a = *in[op == "Where" ? 1 : 0];
  int32_t dtype = compare ? kBool : a.dtype;
  bool isInt = a.isInt(), isUnsigned = dtypeIsUnsigned(a.dtype);
  int64_t n = r.numel();
  // Integers compute in int64 and floats in double; castConst then wraps or
  // rounds to the result's element type.
  ConstTensor wide;
  wide.shape = r.shape;
  wide.dtype = compare ? kInt64 : (isInt ? kInt64 : kFloat64);
  for (int64_t k = 0; k < n; ++k) {
    auto idx = [&](int j) { return sourceIndex(*in[j], r.shape, k); };
    if (op == "Where") {
      bool cond = in[0]->i[idx(0)] != 0;
      const ConstTensor &src = *in[cond ? 1 : 2];
      if (isInt)
        wide.i.push_back(src.i[idx(cond ? 1 : 2)]);
      else
        wide.f.push_back(src.f[idx(cond ? 1 : 2)]);
      continue;
    }
    if (isInt) {
      int64_t x = in[0]->i[idx(0)], y = in.size() > 1 ? in[1]->i[idx(1)] : 0, v = 0;
      auto lt = [&](int64_t p, int64_t q) { return isUnsigned ? (uint64_t)p < (uint64_t)q : p < q; };
      if (op == "Add") v = (int64_t)((uint64_t)x + (uint64_t)y);
      else if (op == "Sub") v = (int64_t)((uint64_t)x - (uint64_t)y);
      else if (op == "Mul") v = (int64_t)((uint64_t)x * (uint64_t)y);
      else if (op == "Div" || op == "Mod") {
        if (y == 0) {
          error = "integer division by zero";
          return std::nullopt;
        }
        if (op == "Div")
          v = isUnsigned ? (int64_t)((uint64_t)x / (uint64_t)y) : x / y;
        else {
          v = isUnsigned ? (int64_t)((uint64_t)x % (uint64_t)y) : x % y;
          if (!fmod && !isUnsigned && v != 0 && ((v < 0) != (y < 0)))
            v += y;
        }
      } else if (op == "Pow") v = (int64_t)std::pow((double)x, in[1]->asDouble(idx(1)));
      else if (op == "Equal") v = x == y;
      else if (op == "Less") v = lt(x, y);
      else if (op == "Greater") v = lt(y, x);
      else if (op == "LessOrEqual") v = !lt(y, x);
      else if (op == "GreaterOrEqual") v = !lt(x, y);
      else if (op == "And") v = x & y;
      else if (op == "Or") v = x | y;
      else if (op == "Xor") v = x ^ y;
      else if (op == "Max") v = lt(x, y) ? y : x;
      else if (op == "Min") v = lt(x, y) ? x : y;
      else if (op == "Not") v = a.dtype == kBool ? !x : ~x;
      else if (op == "Neg") v = -x;
      else if (op == "Abs") v = isUnsigned ? x : std::llabs(x);
      else if (op == "Sign") v = (x > 0) - (x < 0);
      else if (op == "Ceil" || op == "Floor") v = x;
      else
        return std::nullopt; // float-only math on integers
      wide.i.push_back(v);
    } else {
      double x = in[0]->f[idx(0)], y = in.size() > 1 ? in[1]->asDouble(idx(1)) : 0, v = 0;
      if (op == "Add") v = x + y;
      else if (op == "Sub") v = x - y;
      else if (op == "Mul") v = x * y;
      else if (op == "Div") v = x / y;
      else if (op == "Mod") v = std::fmod(x, y);
      else if (op == "Pow") v = std::pow(x, y);
      else if (op == "Max") v = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      else if (op == "Min") v = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      else if (op == "Neg") v = -x;
      else if (op == "Abs") v = std::fabs(x);
      else if (op == "Sqrt") v = std::sqrt(x);
      else if (op == "Reciprocal") v = 1.0 / x;
      else if (op == "Ceil") v = std::ceil(x);
      else if (op == "Floor") v = std::floor(x);
      else if (op == "Exp") v = std::exp(x);
      else if (op == "Log") v = std::log(x);
      else if (op == "Sign") v = std::isnan(x) ? x : (x > 0) - (x < 0);
      else if (compare) {
        bool b = op == "Equal" ? x == y : op == "Less" ? x < y : op == "Greater" ? x > y
                 : op == "LessOrEqual" ? x <= y : x >= y;
        wide.i.push_back(b);
        continue;
      } else
        return std::nullopt; // logic ops take integers
      wide.f.push_back(v);
    }
  }
  return castConst(wide, dtype);
}
