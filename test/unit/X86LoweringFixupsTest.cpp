//===- X86LoweringFixupsTest.cpp - clamps and expands as x86 selects them -===//
#include "../../lib/CodeGen/X86LoweringFixups.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
}

namespace {
std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &ctx, const char *ir) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ir, diag, ctx);
  EXPECT_TRUE(m) << diag.getMessage().str();
  return m;
}

/// `m` as x86-64 assembly for `cpu`.
std::string assemble(llvm::Module &m, const char *cpu) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  std::string error;
  const char *triple = "x86_64-unknown-linux-gnu";
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  EXPECT_TRUE(target) << error;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, cpu, "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  m.setDataLayout(tm->createDataLayout());
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  EXPECT_FALSE(tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile));
  pm.run(m);
  return text.str().str();
}

/// `m` folded by LLVM's O2 pipeline (its constant loads and shuffles).
void fold(llvm::Module &m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(m, mam);
}

/// The constant `@name` returns once `m` is folded.
llvm::Constant *returned(llvm::Module &m, const char *name) {
  for (llvm::BasicBlock &block : *m.getFunction(name))
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator()))
      return llvm::dyn_cast<llvm::Constant>(ret->getReturnValue());
  return nullptr;
}

// A 14-wide row's clamp to 6 before its masked store: InstCombine left the
// select's 6s poison past lane 13.
const char *kClamp = R"(
declare void @llvm.masked.store.v16f32.p0(<16 x float>, ptr, i32, <16 x i1>)
define void @clamp(<16 x float> %x, ptr %p) #0 {
  %gt = fcmp ogt <16 x float> %x, <float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0>
  %c = select <16 x i1> %gt, <16 x float> <float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float 6.0, float poison, float poison>, <16 x float> %x
  call void @llvm.masked.store.v16f32.p0(<16 x float> %c, ptr %p, i32 4, <16 x i1> <i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 1, i1 0, i1 0>)
  ret void
}
attributes #0 = { "target-features"="+avx512f,+avx512vl" }
)";

// A tap's row shifted one lane right, the pad's zero coming in at lane 0
// and (past a 14-wide row) at lane 15; a row's zero tail; a shift between
// two pieces of a row and one left with zeros coming in; and two vectors'
// even lanes (no window). The constant ones fold to values to check.
const char *kShifts = R"(
define <16 x float> @shift(<16 x float> %x) #0 {
  %r = shufflevector <16 x float> %x, <16 x float> <float 0.0, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison, float poison>, <16 x i32> <i32 16, i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 16>
  ret <16 x float> %r
}
define <16 x float> @tail(<16 x float> %x) #0 {
  %r = shufflevector <16 x float> %x, <16 x float> zeroinitializer, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 30, i32 31>
  ret <16 x float> %r
}
define <8 x float> @shift8(<8 x float> %x) #0 {
  %r = shufflevector <8 x float> zeroinitializer, <8 x float> %x, <8 x i32> <i32 0, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14>
  ret <8 x float> %r
}
define <16 x float> @between_pieces(<16 x float> %prev, <16 x float> %cur) #0 {
  %r = shufflevector <16 x float> %prev, <16 x float> %cur, <16 x i32> <i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30>
  ret <16 x float> %r
}
define <16 x float> @left_with_zeros(<16 x float> %x) #0 {
  %r = shufflevector <16 x float> %x, <16 x float> zeroinitializer, <16 x i32> <i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 16, i32 16, i32 16>
  ret <16 x float> %r
}
define <16 x float> @evens(<16 x float> %a, <16 x float> %b) #0 {
  %r = shufflevector <16 x float> %a, <16 x float> %b, <16 x i32> <i32 0, i32 2, i32 4, i32 6, i32 8, i32 10, i32 12, i32 14, i32 16, i32 18, i32 20, i32 22, i32 24, i32 26, i32 28, i32 30>
  ret <16 x float> %r
}
define <16 x float> @between_constants() #0 {
  %r = shufflevector <16 x float> <float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0, float 16.0>, <16 x float> <float 17.0, float 18.0, float 19.0, float 20.0, float 21.0, float 22.0, float 23.0, float 24.0, float 25.0, float 26.0, float 27.0, float 28.0, float 29.0, float 30.0, float 31.0, float 32.0>, <16 x i32> <i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18>
  ret <16 x float> %r
}
define <16 x float> @left_of_constant() #0 {
  %r = shufflevector <16 x float> <float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0, float 16.0>, <16 x float> zeroinitializer, <16 x i32> <i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 16, i32 16, i32 16>
  ret <16 x float> %r
}
define <8 x double> @doubles_of_constant() #0 {
  %r = shufflevector <8 x double> <double 1.0, double 2.0, double 3.0, double 4.0, double 5.0, double 6.0, double 7.0, double 8.0>, <8 x double> zeroinitializer, <8 x i32> <i32 8, i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6>
  ret <8 x double> %r
}
define <16 x float> @shift_of_constant() #0 {
  %r = shufflevector <16 x float> <float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0, float 16.0>, <16 x float> zeroinitializer, <16 x i32> <i32 16, i32 16, i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 16, i32 16>
  ret <16 x float> %r
}
attributes #0 = { "target-features"="+avx512f,+avx512vl" }
)";

TEST(X86LoweringFixups, ClampTakesTheComparedConstantBack) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = parse(ctx, kClamp);
  std::string before = assemble(*parse(ctx, kClamp), "znver4");
  EXPECT_NE(before.find("vcmpltps"), std::string::npos) << before;
  dlc::codegen::restoreClampConstants(*m);
  EXPECT_FALSE(llvm::verifyModule(*m, &llvm::errs()));
  auto *select = llvm::cast<llvm::SelectInst>(&*++m->getFunction("clamp")->front().begin());
  auto *cmp = llvm::cast<llvm::FCmpInst>(select->getCondition());
  EXPECT_EQ(select->getTrueValue(), cmp->getOperand(1));
  std::string after = assemble(*m, "znver4");
  EXPECT_NE(after.find("vminps"), std::string::npos) << after;
  EXPECT_EQ(after.find("vcmpltps"), std::string::npos) << after;
}

/// The number of times `what` occurs in `text`.
int count(const std::string &text, const std::string &what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(X86LoweringFixups, ZenShiftsAreRotationsNotExpandsOrPermutes) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = parse(ctx, kShifts);
  std::string before = assemble(*parse(ctx, kShifts), "znver4");
  EXPECT_NE(before.find("vexpandps"), std::string::npos) << before;
  EXPECT_GE(count(before, "vpermt2ps") + count(before, "vpermi2ps"), 3) << before;
  dlc::codegen::rotateShufflesForZen(*m, "znver4");
  EXPECT_FALSE(llvm::verifyModule(*m, &llvm::errs()));
  std::string after = assemble(*m, "znver4");
  // Only 512-bit shuffles change: shift8's 256-bit expand stays.
  EXPECT_EQ(count(after, "vexpand"), 1) << after;
  EXPECT_NE(after.find("vexpandps\t%ymm"), std::string::npos) << after;
  // The even lanes of two vectors are no window: they keep their permute.
  EXPECT_EQ(count(after, "vpermt2ps") + count(after, "vpermi2ps"), 1) << after;
  // shift, between_pieces and left_with_zeros (tail is a zeroing move; the
  // constants' shuffles fold).
  EXPECT_EQ(count(after, "valignd"), 3) << after;
}

TEST(X86LoweringFixups, RotationsKeepTheShufflesValues) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = parse(ctx, kShifts);
  dlc::codegen::rotateShufflesForZen(*m, "znver4");
  for (const char *name :
       {"shift_of_constant", "between_constants", "left_of_constant", "doubles_of_constant"})
    EXPECT_EQ(m->getFunction(name)->front().front().getOpcode(), llvm::Instruction::Load) << name;
  fold(*m);
  struct Case {
    const char *name;
    float want[16];
  };
  for (const Case &c : {Case{"shift_of_constant", {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0}},
                        Case{"between_constants",
                             {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
                        Case{"left_of_constant", {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 0, 0}}}) {
    llvm::Constant *got = returned(*m, c.name);
    ASSERT_TRUE(got) << c.name;
    for (unsigned i = 0; i < 16; ++i) {
      auto *lane = llvm::dyn_cast_or_null<llvm::ConstantFP>(got->getAggregateElement(i));
      ASSERT_TRUE(lane) << c.name << " lane " << i;
      EXPECT_EQ(lane->getValueAPF().convertToFloat(), c.want[i]) << c.name << " lane " << i;
    }
  }
  // Eight doubles: the mask is an i8.
  llvm::Constant *doubles = returned(*m, "doubles_of_constant");
  ASSERT_TRUE(doubles);
  for (unsigned i = 0; i < 8; ++i) {
    auto *lane = llvm::dyn_cast_or_null<llvm::ConstantFP>(doubles->getAggregateElement(i));
    ASSERT_TRUE(lane) << "double lane " << i;
    EXPECT_EQ(lane->getValueAPF().convertToDouble(), double(i)) << "double lane " << i;
  }
}

TEST(X86LoweringFixups, OtherCpusKeepTheirShuffles) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = parse(ctx, kShifts);
  dlc::codegen::rotateShufflesForZen(*m, "skylake-avx512");
  for (const char *name : {"shift", "tail", "shift8", "between_pieces", "left_with_zeros"})
    EXPECT_TRUE(llvm::isa<llvm::ShuffleVectorInst>(m->getFunction(name)->front().front())) << name;
}
} // namespace
