//===- Target.cpp - target descriptions -----------------------------------===//
#include "dlc/Compile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <unistd.h>

namespace {
/// CPUs that run a 512-bit vector op as two 256-bit halves (AMD Zen 4): on
/// them AVX-512's 16-lane register tiles (12 x 16, tuned on Sapphire
/// Rapids) do no more FMAs per cycle than AVX2's 8-lane ones (6 x 16) and
/// pad small filter counts twice as far. Measured on a 2-core Zen 4 VM,
/// one thread, native with 16 lanes against 8 (the code still EVEX-encoded,
/// 32 registers): MobileNetV2 8.29 -> 7.28 ms, ResNet-50 71.6 -> 66.6,
/// ResNet-18 24.9 -> 24.4, LeNet 18.6 -> 13.6 us. Zen 5 (znver5) has
/// full-width 512-bit FMAs (bench/fma_peak.c: 270 GFLOP/s a core, twice
/// its 256-bit rate) and keeps 16 lanes: with 8 (2-core Zen 5 VM, one
/// thread, per-call pairs) MobileNetV2 ran 3.44 -> 3.87 ms and ResNet-50
/// 30.4 -> 33.8 ms; only LeNet gained (6.3 -> 6.1 us). With AVX-512 at
/// 8 lanes (32 registers) the pipeline still gives window-tap kernels and
/// image stems 16-lane rows (see buildCpuPipeline): on Zen 4 (session 52)
/// MobileNetV2 then ran in 0.915 of its time, and at 16 lanes throughout in
/// 0.96-0.97.
bool splitsWideVectors(llvm::StringRef cpu) { return cpu == "znver4"; }

/// Intel's AVX-512 cores (LLVM names AMD's znver*): there, in the models,
/// the transposed register tile in rows of 7 pixels (dlc::layoutFor) ran
/// slower than row panels on GEMMs whose filters are over the L2
/// (ResNet-50's 7x7 maps, 4 to 9 MB: 0.95 of its time; a 2-core Xeon VM,
/// session 61), where Zen 5 had measured it faster. Native builds bound
/// the transposed filters by the L2 there; x86-64-avx512 (tuned on the
/// device's Sapphire Rapids) does not, unmeasured.
bool isIntelWithAvx512(llvm::StringRef cpu, const llvm::StringMap<bool> &features) {
  return features.lookup("avx512f") && !cpu.starts_with("znver");
}
} // namespace

bool dlc::resolveTarget(const std::string &name, Target &target, std::string &error) {
  target.name = name;
  if (name == "x86-64-avx2") {
    target.cpu = "haswell";
    target.features = "+avx2,+fma,+f16c";
    target.vectorWidth = 8;
    return true;
  }
  if (name == "x86-64-avx512") {
    // Skylake-AVX512 and later (the device machine is Sapphire Rapids).
    target.cpu = "skylake-avx512";
    target.features = "+avx512f,+avx512dq,+avx512bw,+avx512vl,+fma,-prefer-256-bit";
    target.vectorWidth = 16;
    target.vectorRegisters = 32;
    // Skylake-SP has 1 MB of L2 a core, Sapphire Rapids 2 MB.
    target.l2CacheBytes = 1 << 20;
    return true;
  }
  if (name == "native" || name.empty()) {
    target.name = "native";
    target.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    std::string f;
    for (auto &kv : features)
      f += (f.empty() ? "" : ",") + std::string(kv.second ? "+" : "-") + kv.first().str();
    target.features = f;
    target.vectorWidth = features.lookup("avx512f") && !splitsWideVectors(target.cpu) ? 16 : 8;
    // AVX-512VL's 32 registers serve 8-lane code too (larger register tiles).
    target.vectorRegisters = features.lookup("avx512f") && features.lookup("avx512vl") ? 32 : 16;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    target.l2CacheBytes = l2 > 0 ? l2 : 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    target.cores = cores > 0 ? cores : 0;
    if (isIntelWithAvx512(target.cpu, features))
      target.transposedFilterBytes = target.l2CacheBytes;
    return true;
  }
  if (name.rfind("cuda:", 0) == 0) {
    // NVIDIA GPUs LLVM 19's NVPTX back end knows and the runtime was tested
    // against: Ampere (sm_80, sm_86), Ada (sm_89), Hopper (sm_90, sm_90a).
    std::string chip = name.substr(5);
    for (const char *known : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"})
      if (chip == known) {
        target.cpu = chip;
        target.features = "+ptx80";
        target.vectorWidth = 1;
        return true;
      }
    error = "unknown CUDA target '" + name + "' (use cuda:sm_80, cuda:sm_86, cuda:sm_89, "
            "cuda:sm_90 or cuda:sm_90a)";
    return false;
  }
  error = "unknown target '" + name +
          "' (use x86-64-avx2, x86-64-avx512, native or cuda:sm_90)";
  return false;
}
