//===- Npy.cpp - read and write float32 .npy files ------------------------===//
#include "tools/dlc/Npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace dlc;

bool dlc::readNpy(const std::string &path, NpyArray &out, std::string &error,
                  bool allowInts) {
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
  bool f4 = descr.find("<f4") != std::string::npos;
  bool i8 = descr.find("<i8") != std::string::npos, i4 = descr.find("<i4") != std::string::npos;
  if (!f4 && !(allowInts && (i8 || i4))) {
    error = "'" + path + "' has dtype " + descr + "; expected float32 ('<f4')" +
            (allowInts ? " or int64/int32" : "");
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
  bool ok;
  out.isInt = !f4;
  if (f4) {
    out.data.resize(out.numel());
    ok = (bool)in.read((char *)out.data.data(), out.data.size() * 4);
  } else if (i8) {
    out.ints.resize(out.numel());
    ok = (bool)in.read((char *)out.ints.data(), out.ints.size() * 8);
  } else {
    std::vector<int32_t> v(out.numel());
    ok = (bool)in.read((char *)v.data(), v.size() * 4);
    out.ints.assign(v.begin(), v.end());
  }
  if (!ok) {
    error = "'" + path + "' has fewer elements than its shape says";
    return false;
  }
  return true;
}

bool dlc::writeNpy(const std::string &path, const NpyArray &a, std::string &error) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : (i + 1 < a.shape.size() ? ", " : ""));
  shape += ")";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
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
  out.write((const char *)a.data.data(), a.data.size() * 4);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
