//===- Npy.cpp - read and write .npy files ----------------------------------===//
#include "tools/dlc/Npy.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace dlc;

namespace {
template <typename T>
T load(const char *p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}
} // namespace

std::vector<int64_t> NpyArray::ints() const {
  std::vector<int64_t> out(numel());
  int64_t w = dtypeBytes(dtype);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = loadInteger(dtype, bytes.data() + i * w);
  return out;
}

std::vector<double> NpyArray::doubles() const {
  std::vector<double> out(numel());
  int64_t w = dtypeBytes(dtype);
  for (size_t i = 0; i < out.size(); ++i) {
    const char *p = bytes.data() + i * w;
    switch (dtype) {
    case kFloat32: out[i] = load<float>(p); break;
    case kFloat64: out[i] = load<double>(p); break;
    case kFloat16:
    case kBFloat16:
      out[i] = llvm::APFloat(dtype == kFloat16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                             llvm::APInt(16, load<uint16_t>(p)))
                   .convertToDouble();
      break;
    default:
      out[i] = dtypeIsUnsigned(dtype) ? (double)(uint64_t)loadInteger(dtype, p)
                                      : (double)loadInteger(dtype, p);
      break;
    }
  }
  return out;
}

bool dlc::readNpy(const std::string &path, NpyArray &out, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  char magic[8];
  if (!in.read(magic, 8) || memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file";
    return false;
  }
  uint32_t headerLen = 0;
  unsigned char b[4] = {0, 0, 0, 0};
  if (magic[6] == 1) {
    in.read((char *)b, 2);
    headerLen = b[0] | (b[1] << 8);
  } else {
    in.read((char *)b, 4);
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | ((uint32_t)b[3] << 24);
  }
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen)) {
    error = "'" + path + "' has a truncated header";
    return false;
  }
  auto field = [&](const char *key) -> std::string {
    auto k = header.find(std::string("'") + key + "'");
    if (k == std::string::npos)
      return "";
    auto colon = header.find(':', k);
    auto end = header.find_first_of(key[0] == 's' ? ")" : ",}", colon);
    return header.substr(colon + 1, end - colon);
  };
  std::string descr = field("descr"), order = field("fortran_order"), shape = field("shape");
  auto q1 = descr.find('\''), q2 = descr.rfind('\'');
  std::string type = q1 != std::string::npos && q2 > q1 ? descr.substr(q1 + 1, q2 - q1 - 1) : "";
  out.dtype = dtypeFromNumpyDescr(type);
  if (!out.dtype) {
    error = "'" + path + "' has dtype '" + type +
            "'; dlc reads little-endian bool, int8-64, uint8-64, bfloat16 (<V2), float16, float32 and float64";
    return false;
  }
  if (order.find("True") != std::string::npos) {
    error = "'" + path + "' is Fortran-ordered; expected C order";
    return false;
  }
  out.shape.clear();
  std::string dims = shape.substr(shape.find('(') + 1);
  std::stringstream ss(dims);
  std::string part;
  while (std::getline(ss, part, ',')) {
    part.erase(0, part.find_first_not_of(" )"));
    part.erase(part.find_last_not_of(" )") + 1);
    if (!part.empty())
      out.shape.push_back(std::stoll(part));
  }
  out.allocate();
  if (!in.read(out.bytes.data(), out.bytes.size())) {
    error = "'" + path + "' has fewer elements than its shape says";
    return false;
  }
  return true;
}

bool dlc::writeNpy(const std::string &path, const NpyArray &a, std::string &error) {
  std::string descr = dtypeNumpyDescr(a.dtype);
  if (descr.empty()) {
    error = "cannot write '" + path + "': numpy has no " + dtypeName(a.dtype) + " type";
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : (i + 1 < a.shape.size() ? ", " : ""));
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = header.size();
  unsigned char lb[2] = {(unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  out.write((const char *)lb, 2);
  out << header;
  out.write(a.bytes.data(), a.bytes.size());
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
