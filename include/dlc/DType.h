//===- DType.h - tensor element types at dlc's boundaries -----------------===//
//
// One numbering for element types wherever a tensor crosses into or out of
// dlc: the ONNX TensorProto codes, which the runtime's dlc_dtype repeats.
// Names are numpy's ("float32", "int64", "bool"), as users see them.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_DTYPE_H
#define DLC_DTYPE_H

#include <cstdint>
#include <cstring>
#include <string>

namespace dlc {
enum DType : int32_t {
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kBFloat16 = 16,
};

/// The numpy-style name ("float32"), or nullptr for a code dlc does not handle.
inline const char *dtypeName(int32_t t) {
  switch (t) {
  case kFloat32: return "float32";
  case kUInt8: return "uint8";
  case kInt8: return "int8";
  case kUInt16: return "uint16";
  case kInt16: return "int16";
  case kInt32: return "int32";
  case kInt64: return "int64";
  case kBool: return "bool";
  case kFloat16: return "float16";
  case kFloat64: return "float64";
  case kUInt32: return "uint32";
  case kUInt64: return "uint64";
  case kBFloat16: return "bfloat16";
  default: return nullptr;
  }
}

/// The code for a name dtypeName gives; 0 if unknown.
inline int32_t dtypeFromName(const std::string &name) {
  for (int32_t t : {kFloat32, kUInt8, kInt8, kUInt16, kInt16, kInt32, kInt64, kBool,
                    kFloat16, kFloat64, kUInt32, kUInt64, kBFloat16})
    if (name == dtypeName(t))
      return t;
  return 0;
}

/// Bytes per element (bool is one byte, as in numpy and C).
inline int64_t dtypeBytes(int32_t t) {
  switch (t) {
  case kUInt8: case kInt8: case kBool: return 1;
  case kUInt16: case kInt16: case kFloat16: case kBFloat16: return 2;
  case kFloat32: case kInt32: case kUInt32: return 4;
  default: return 8;
  }
}

inline bool dtypeIsFloat(int32_t t) {
  return t == kFloat32 || t == kFloat16 || t == kFloat64 || t == kBFloat16;
}
inline bool dtypeIsUnsigned(int32_t t) {
  return t == kUInt8 || t == kUInt16 || t == kUInt32 || t == kUInt64;
}

/// The integer or bool element of type `t` at `p` (little-endian), widened
/// to int64 (uint64: its bit pattern).
inline int64_t loadInteger(int32_t t, const char *p) {
  auto load = [p](auto v) {
    memcpy(&v, p, sizeof(v));
    return (int64_t)v;
  };
  switch (t) {
  case kInt8: return load(int8_t());
  case kUInt8: case kBool: return load(uint8_t());
  case kInt16: return load(int16_t());
  case kUInt16: return load(uint16_t());
  case kInt32: return load(int32_t());
  case kUInt32: return load(uint32_t());
  default: return load(int64_t());
  }
}

/// numpy's little-endian type string ("<f4"). numpy has no bfloat16: the
/// ml_dtypes package (what onnx and JAX use) saves it as two raw bytes,
/// "<V2", and so does dlc.
inline std::string dtypeNumpyDescr(int32_t t) {
  switch (t) {
  case kFloat32: return "<f4";
  case kUInt8: return "|u1";
  case kInt8: return "|i1";
  case kUInt16: return "<u2";
  case kInt16: return "<i2";
  case kInt32: return "<i4";
  case kInt64: return "<i8";
  case kBool: return "|b1";
  case kFloat16: return "<f2";
  case kFloat64: return "<f8";
  case kUInt32: return "<u4";
  case kUInt64: return "<u8";
  case kBFloat16: return "<V2";
  default: return "";
  }
}

/// The code for a numpy type string; 0 if dlc does not handle it.
inline int32_t dtypeFromNumpyDescr(std::string d) {
  if (!d.empty() && d[0] == '=')
    d[0] = '<';
  for (int32_t t : {kFloat32, kUInt8, kInt8, kUInt16, kInt16, kInt32, kInt64, kBool,
                    kFloat16, kFloat64, kUInt32, kUInt64, kBFloat16}) {
    std::string n = dtypeNumpyDescr(t);
    if (d == n || (d.size() == 3 && d.substr(1) == n.substr(1) && (n[0] == '|' || d[0] == '|')))
      return t;
  }
  return 0;
}
} // namespace dlc

#endif
