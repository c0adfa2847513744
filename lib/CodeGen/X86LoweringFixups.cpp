//===- X86LoweringFixups.cpp - LLVM IR the x86 back end lowers poorly -----===//
#include "X86LoweringFixups.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

#include <map>
#include <optional>
#include <utility>

namespace dlc::codegen {
namespace {
/// Whether the constant vector `narrowed` is `full` with some lanes poison
/// or undef.
bool isNarrowedConstant(llvm::Constant *narrowed, llvm::Constant *full) {
  auto *type = llvm::dyn_cast<llvm::FixedVectorType>(narrowed->getType());
  if (!type || narrowed == full || full->getType() != type)
    return false;
  for (unsigned i = 0; i < type->getNumElements(); ++i) {
    llvm::Constant *lane = narrowed->getAggregateElement(i);
    if (!lane || (!llvm::isa<llvm::UndefValue>(lane) && lane != full->getAggregateElement(i)))
      return false;
  }
  return true;
}

/// The lanes of a shuffle of `x` and zeros that x86's lowering makes a
/// vexpandps/pd: `mask` (over `lanes` lanes, `x` the second operand where
/// `fromSecond`) takes x[0], x[1], ... into one run of consecutive lanes
/// and zeros (or nothing) into the others. Returns the run's first lane
/// and the lanes it covers as bits; nothing where the mask is otherwise.
std::optional<std::pair<unsigned, uint64_t>> expandRun(llvm::ArrayRef<int> mask, unsigned lanes,
                                                       bool fromSecond) {
  std::optional<unsigned> first;
  uint64_t bits = 0;
  for (unsigned j = 0; j < lanes; ++j) {
    int m = mask[j];
    if (m < 0 || (unsigned(m) >= lanes) != fromSecond)
      continue;
    unsigned element = unsigned(m) - (fromSecond ? lanes : 0);
    if (!first)
      first = j;
    if (element != j - *first || element != unsigned(llvm::popcount(bits)))
      return std::nullopt;
    bits |= uint64_t(1) << j;
  }
  if (!first)
    return std::nullopt;
  return std::make_pair(*first, bits);
}
} // namespace

void restoreClampConstants(llvm::Module &m) {
  for (llvm::Function &f : m)
    for (llvm::Instruction &inst : llvm::instructions(f)) {
      auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst);
      auto *cmp = select ? llvm::dyn_cast<llvm::FCmpInst>(select->getCondition()) : nullptr;
      if (!cmp)
        continue;
      for (llvm::Value *bound : cmp->operands()) {
        auto *full = llvm::dyn_cast<llvm::Constant>(bound);
        if (!full)
          continue;
        for (unsigned k : {1u, 2u})
          if (auto *c = llvm::dyn_cast<llvm::Constant>(select->getOperand(k));
              c && isNarrowedConstant(c, full))
            select->setOperand(k, full);
      }
    }
}

/// Why (Zen 4, one thread, each conv compiled alone): a vexpandps took
/// every shifted row of MobileNetV2's depthwise taps where the pad's zero
/// comes in, and one more (a vexpandpd) zeroed each 14-wide row's tail.
/// The 384-channel 14x14 conv ran 21.7 us with them and 18.2 with these
/// rotations (16.7 with restoreClampConstants too); a build whose
/// vexpandps read the rows' masked loads directly took 34.7. The 192-,
/// 144- and 32-channel convs over 28x28, 56x56 and 112x112: 44.7 -> 37,
/// 112 -> 109 and 92 -> 89 us. A vpermt2ps with a zero register instead
/// of each vexpandps needs an index register and only matched them. The
/// mask is a load because with a constant mask the select and rotation
/// fold back into the expand, and the optimization pipeline would fold
/// that load: this runs after it.
void avoidExpandShuffles(llvm::Module &m, llvm::StringRef cpu) {
  if (!cpu.starts_with("znver"))
    return;
  llvm::SmallVector<llvm::ShuffleVectorInst *> shuffles;
  for (llvm::Function &f : m) {
    if (!f.getFnAttribute("target-features").getValueAsString().contains("+avx512f"))
      continue;
    for (llvm::Instruction &inst : llvm::instructions(f))
      if (auto *shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&inst))
        shuffles.push_back(shuffle);
  }
  // Zeros where defined: InstCombine leaves the lanes a shuffle does not
  // read poison.
  auto isZeros = [](llvm::Value *v, unsigned lanes) {
    auto *c = llvm::dyn_cast<llvm::Constant>(v);
    if (!c)
      return false;
    for (unsigned i = 0; i < lanes; ++i) {
      llvm::Constant *lane = c->getAggregateElement(i);
      if (!lane || !(lane->isNullValue() || llvm::isa<llvm::UndefValue>(lane)))
        return false;
    }
    return true;
  };
  std::map<std::pair<unsigned, uint64_t>, llvm::GlobalVariable *> masks;
  for (llvm::ShuffleVectorInst *shuffle : shuffles) {
    auto *type = llvm::dyn_cast<llvm::FixedVectorType>(shuffle->getType());
    if (!type || type != shuffle->getOperand(0)->getType())
      continue;
    unsigned lanes = type->getNumElements(), bits = type->getPrimitiveSizeInBits();
    unsigned elemBits = type->getScalarSizeInBits();
    if ((bits != 512 && bits != 256) || (elemBits != 32 && elemBits != 64))
      continue;
    llvm::ArrayRef<int> mask = shuffle->getShuffleMask();
    std::optional<std::pair<unsigned, uint64_t>> run;
    llvm::Value *x = nullptr;
    if (isZeros(shuffle->getOperand(0), lanes) && (run = expandRun(mask, lanes, true)))
      x = shuffle->getOperand(1);
    else if (isZeros(shuffle->getOperand(1), lanes) && (run = expandRun(mask, lanes, false)))
      x = shuffle->getOperand(0);
    if (!x)
      continue;
    auto [first, laneBits] = *run;
    llvm::GlobalVariable *&global = masks[{lanes, laneBits}];
    llvm::IRBuilder<> b(shuffle);
    llvm::Type *maskInt = b.getIntNTy(std::max(lanes, 8u));
    if (!global) {
      global = new llvm::GlobalVariable(m, maskInt, /*isConstant=*/true,
                                        llvm::GlobalValue::InternalLinkage,
                                        llvm::ConstantInt::get(maskInt, laneBits),
                                        "dlc_lane_mask");
    }
    llvm::Value *maskBits = b.CreateLoad(maskInt, global);
    llvm::Value *laneMask = b.CreateBitCast(
        maskBits, llvm::FixedVectorType::get(b.getInt1Ty(), std::max(lanes, 8u)));
    if (lanes < 8)
      laneMask = b.CreateShuffleVector(laneMask, llvm::ArrayRef<int>{0, 1, 2, 3});
    auto *intType = llvm::FixedVectorType::get(b.getIntNTy(elemBits), lanes);
    llvm::Value *xi = b.CreateBitCast(x, intType);
    if (first) {
      llvm::SmallVector<int> rotate;
      for (unsigned j = 0; j < lanes; ++j)
        rotate.push_back(int((j + lanes - first) % lanes));
      xi = b.CreateShuffleVector(xi, rotate);
    }
    llvm::Value *picked = b.CreateSelect(laneMask, xi, llvm::Constant::getNullValue(intType));
    shuffle->replaceAllUsesWith(b.CreateBitCast(picked, type));
    shuffle->eraseFromParent();
  }
}

void fixUpX86Lowering(llvm::Module &m, llvm::StringRef cpu) {
  restoreClampConstants(m);
  avoidExpandShuffles(m, cpu);
}
} // namespace dlc::codegen
