//===- X86LoweringFixups.h - LLVM IR the x86 back end lowers poorly -------===//
//
// Rewrites of the optimized LLVM module that steer x86's instruction
// selection off two patterns that cost dlc's depthwise convs their speed.
// They run after LLVM's optimization pipeline, which would undo them, and
// before code generation. Both keep the module's meaning exactly.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_LIB_CODEGEN_X86LOWERINGFIXUPS_H
#define DLC_LIB_CODEGEN_X86LOWERINGFIXUPS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

namespace dlc::codegen {
/// A clamp by a constant is select(fcmp(c, x), c, x) (see
/// dlc-constant-min-max-to-select), which x86 selects as one vminps or
/// vmaxps. Where only some lanes of the result are stored (a 14-wide row's
/// masked store), InstCombine made the select's copy of `c` poison in the
/// other lanes but left the compare's, and the clamp took a compare and a
/// masked move. Puts the compare's constant back into the select (every
/// lane the select keeps holds the same value, so nothing changes).
void restoreClampConstants(llvm::Module &m);

/// On AMD's Zen 4 and 5 (`cpu` "znver*"), in functions with AVX-512: every
/// 512-bit shuffle that is a window of its operands' concatenation, zeros
/// in some lanes (a depthwise tap's row shifted a lane, from the pieces
/// beside it or with the pad's zero coming in; a 14-wide row's zero tail),
/// becomes that window in the integer domain selected against zeros by a
/// lane mask loaded from a constant, which x86 selects as one
/// valignd/valignq (or a move) with a zeroing mask. As shuffles they
/// became vpermt2ps and vexpandps, which on these cores take the FMA
/// pipes' time (valignd does not; the measurements are in the .cpp).
void rotateShufflesForZen(llvm::Module &m, llvm::StringRef cpu);

/// Both of the above, for a module compiled for `cpu`.
void fixUpX86Lowering(llvm::Module &m, llvm::StringRef cpu);
} // namespace dlc::codegen

#endif // DLC_LIB_CODEGEN_X86LOWERINGFIXUPS_H
