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

/// A shuffle as a window of its operands' concatenation (`low` then `high`,
/// lanes a vector): lane j takes element j + shift of it where `keep` has
/// bit j, a zero elsewhere. valignd/valignq computes exactly that.
struct LaneWindow {
  llvm::Value *low, *high;
  unsigned shift;
  uint64_t keep;
};

/// `shuffle` as a LaneWindow, where it is one: each lane takes either a
/// zero (from an operand of zeros) or an element of the other operands'
/// concatenation at its own position plus one shift; nothing where a lane
/// breaks that or the window is the identity.
std::optional<LaneWindow> laneWindow(llvm::ShuffleVectorInst *shuffle) {
  unsigned lanes = llvm::cast<llvm::FixedVectorType>(shuffle->getType())->getNumElements();
  // Zeros where defined: InstCombine leaves the lanes a shuffle does not
  // read poison.
  auto isZeros = [lanes](llvm::Value *v) {
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
  llvm::Value *ops[2] = {shuffle->getOperand(0), shuffle->getOperand(1)};
  bool zeros[2] = {isZeros(ops[0]), isZeros(ops[1])};
  llvm::ArrayRef<int> mask = shuffle->getShuffleMask();
  // Both orders of the data operands: operand `first` low.
  for (unsigned first : {0u, 1u}) {
    llvm::Value *low = ops[first], *high = ops[1 - first];
    bool lowZeros = zeros[first], highZeros = zeros[1 - first];
    std::optional<unsigned> shift;
    uint64_t keep = 0;
    bool ok = true;
    for (unsigned j = 0; j < lanes && ok; ++j) {
      int m = mask[j];
      if (m < 0) // any value: left out of `keep`, a zero
        continue;
      unsigned operand = unsigned(m) / lanes, element = unsigned(m) % lanes;
      bool fromLow = operand == first;
      if (fromLow ? lowZeros : highZeros)
        continue; // a zero: the lane stays out of `keep`
      // Its place in low ++ high; where only one operand has data, in that
      // operand twice over (a rotation of it).
      unsigned at = lowZeros || highZeros ? element + (element < j ? lanes : 0)
                    : fromLow           ? element
                                        : lanes + element;
      if (at < j || at - j >= 2 * lanes || (shift && *shift != at - j)) {
        ok = false;
        break;
      }
      shift = at - j;
      keep |= uint64_t(1) << j;
    }
    if (!ok || !shift || (lowZeros && highZeros))
      continue;
    if (lowZeros || highZeros) {
      // One data operand: a rotation of it.
      llvm::Value *data = lowZeros ? high : low;
      *shift %= lanes;
      return LaneWindow{data, data, *shift, keep};
    }
    if (*shift == 0 || *shift >= lanes)
      continue; // all of one operand: not a two-operand window
    return LaneWindow{low, high, *shift, keep};
  }
  return std::nullopt;
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

/// Why (Zen 4): beside 8 independent zmm FMAs a loop step (a C loop of
/// inline asm, the FMAs alone 8 cycles) took 2.7 cycles more for 4
/// vpermt2ps and 5.5 for 4 vexpandps, none for 4 valignd, vshufps,
/// vpermps, vpermq or vunpcklps: only the two-source permutes and the
/// expands share the FMAs' pipes. x86's lowering made every shifted tap
/// row a vpermt2ps (the pieces beside it) or a vexpandps (the pad's zero
/// coming in), and each 14-wide row's zero tail a vexpandpd. MobileNetV2's
/// depthwise convs compiled alone, one thread, with restoreClampConstants
/// (session 57's first compiler against its last): 384 channels over
/// 14x14 22.0 -> 15.8 us, 192 over 28x28 47.2 -> 35.6, 144 over 56x56
/// 119.6 -> 90.3, 32 over 112x112 95.7 -> 72.5; a build whose vexpandps
/// read the rows' masked loads directly had taken 34.7 us for the first.
/// A vpermt2ps against a zero register in place of each expand needs an
/// index register and only matched the expands; a stride-2 tap's even or
/// odd lanes as a vshufps and a qword permute (no window) ran its conv
/// slower (84 -> 89 us). The mask is a load because with a constant one
/// the select and the window fold back into the shuffle, and the
/// optimization pipeline would fold that load: this runs after it.
void rotateShufflesForZen(llvm::Module &m, llvm::StringRef cpu) {
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
  std::map<std::pair<unsigned, uint64_t>, llvm::GlobalVariable *> masks;
  for (llvm::ShuffleVectorInst *shuffle : shuffles) {
    auto *type = llvm::dyn_cast<llvm::FixedVectorType>(shuffle->getType());
    if (!type || type != shuffle->getOperand(0)->getType())
      continue;
    unsigned lanes = type->getNumElements(), bits = type->getPrimitiveSizeInBits();
    unsigned elemBits = type->getScalarSizeInBits();
    // 256-bit ones too made LeNet's first conv (its rows in ymm) 1% slower:
    // a ymm vpermt2ps costs a third of a zmm one, and LLVM had taken
    // one-source permutes for most of them.
    if (bits != 512 || (elemBits != 32 && elemBits != 64))
      continue;
    std::optional<LaneWindow> window = laneWindow(shuffle);
    if (!window || (window->low == window->high && window->shift == 0 &&
                    window->keep == (uint64_t(1) << lanes) - 1))
      continue;
    // 512 bits are 16 or 8 lanes: the mask is an i16 or i8 (a k register,
    // which the back end loads once in the function's prologue).
    llvm::GlobalVariable *&global = masks[{lanes, window->keep}];
    llvm::IRBuilder<> b(shuffle);
    llvm::Type *maskInt = b.getIntNTy(lanes);
    if (!global)
      global = new llvm::GlobalVariable(m, maskInt, /*isConstant=*/true,
                                        llvm::GlobalValue::InternalLinkage,
                                        llvm::ConstantInt::get(maskInt, window->keep),
                                        "dlc_lane_mask");
    llvm::Value *laneMask = b.CreateBitCast(b.CreateLoad(maskInt, global),
                                            llvm::FixedVectorType::get(b.getInt1Ty(), lanes));
    auto *intType = llvm::FixedVectorType::get(b.getIntNTy(elemBits), lanes);
    llvm::Value *low = b.CreateBitCast(window->low, intType);
    llvm::Value *high = b.CreateBitCast(window->high, intType);
    llvm::SmallVector<int> concat;
    for (unsigned j = 0; j < lanes; ++j)
      concat.push_back(int(j + window->shift));
    llvm::Value *moved =
        window->shift == 0 ? low : b.CreateShuffleVector(low, high, concat);
    llvm::Value *picked = b.CreateSelect(laneMask, moved, llvm::Constant::getNullValue(intType));
    shuffle->replaceAllUsesWith(b.CreateBitCast(picked, type));
    shuffle->eraseFromParent();
  }
}

void fixUpX86Lowering(llvm::Module &m, llvm::StringRef cpu) {
  restoreClampConstants(m);
  rotateShufflesForZen(m, cpu);
}
} // namespace dlc::codegen
