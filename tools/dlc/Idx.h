//===- Idx.h - MNIST-style IDX files (plain or gzip) -----------------------===//
#ifndef DLC_TOOLS_IDX_H
#define DLC_TOOLS_IDX_H

#include <cstdint>
#include <string>
#include <vector>

namespace dlc {
/// An IDX file of unsigned bytes: dims from its header, data row-major.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

/// Reads `path` (gzip-compressed or not) and checks that it holds `rank`
/// dims of ubyte data and exactly as many bytes as its header says. On
/// failure returns false with `error` naming the file and what is wrong.
bool readIdx(const std::string &path, int rank, IdxArray &out, std::string &error);
} // namespace dlc

#endif
