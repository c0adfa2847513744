//===- Registration.h - dialects and interfaces dlc tools load ------------===//
#ifndef DLC_REGISTRATION_H
#define DLC_REGISTRATION_H

namespace mlir {
class DialectRegistry;
}

namespace dlc {
/// The dialects the dlc pipeline creates, with their bufferization, tiling
/// and LLVM-translation interfaces. Deliberately not InitAllDialects.h.
void registerDialects(mlir::DialectRegistry &registry);
/// dlc passes and pipelines, for dlc-opt.
void registerPasses();
} // namespace dlc

#endif
