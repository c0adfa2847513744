//===- Train.h - `dlc train` and `dlc export-onnx` ------------------------===//
#ifndef DLC_TOOLS_TRAIN_H
#define DLC_TOOLS_TRAIN_H

namespace dlc {
/// dlc train MODEL.onnx|TRAIN.so --dataset fashion-mnist [...]
int trainCommand(int argc, char **argv);
/// dlc export-onnx MODEL.onnx PARAMS.bin -o OUT.onnx
int exportOnnxCommand(int argc, char **argv);
} // namespace dlc

#endif
