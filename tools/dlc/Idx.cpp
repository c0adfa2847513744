//===- Idx.cpp - MNIST-style IDX files (plain or gzip) ---------------------===//
//
// Header: two zero bytes, a type code (0x08 = ubyte), the rank, then each
// dim as a big-endian uint32; then the data. zlib's gz* reads gzip and
// plain files alike.
//
//===----------------------------------------------------------------------===//
#include "tools/dlc/Idx.h"

#include <zlib.h>

bool dlc::readIdx(const std::string &path, int rank, IdxArray &out, std::string &error) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0)
    bytes.insert(bytes.end(), buf, buf + n);
  int errnum = 0;
  gzerror(f, &errnum);
  gzclose(f);
  if (n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
    error = "'" + path + "' is corrupt (gzip data does not decompress)";
    return false;
  }
  size_t header = 4 + 4 * (size_t)rank;
  if (bytes.size() < header || bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08 ||
      bytes[3] != rank) {
    error = "'" + path + "' is not an IDX file of rank " + std::to_string(rank) + " ubyte data";
    return false;
  }
  out.dims.clear();
  uint64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const uint8_t *p = &bytes[4 + 4 * i];
    out.dims.push_back((int64_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]);
    count *= out.dims.back();
  }
  if (bytes.size() - header != count) {
    error = "'" + path + "' is truncated or has trailing bytes (header says " +
            std::to_string(count) + " values, file has " + std::to_string(bytes.size() - header) +
            ")";
    return false;
  }
  out.data.assign(bytes.begin() + header, bytes.end());
  return true;
}
