//===- Train.cpp - `dlc train` and `dlc export-onnx` ----------------------===//
//
// dlc train: compiles the model with --train (or opens a train library),
// reads Fashion-MNIST's IDX files, and runs epochs of train steps through
// the library's C API, evaluating test accuracy with dlc_run after each.
// dlc export-onnx: writes the ONNX model again with trained parameters.
//
//===----------------------------------------------------------------------===//
#include "tools/dlc/Train.h"

#include "dlc/Compile.h"
#include "dlc/DType.h"
#include "dlc/Import.h"
#include "tools/dlc/Cli.h"
#include "tools/dlc/Idx.h"

#include "llvm/Support/FileSystem.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace dlc::cli;

namespace {
struct Dataset {
  dlc::IdxArray images, labels;
  int64_t count() const { return images.dims[0]; }
};

bool loadSplit(const std::string &dir, const std::string &prefix, Dataset &d,
               std::string &error) {
  std::string images = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  std::string labels = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  if (!dlc::readIdx(images, 3, d.images, error) || !dlc::readIdx(labels, 1, d.labels, error))
    return false;
  if (d.images.dims[1] != 28 || d.images.dims[2] != 28) {
    error = "'" + images + "' holds " + std::to_string(d.images.dims[1]) + "x" +
            std::to_string(d.images.dims[2]) + " images, not 28x28";
    return false;
  }
  if (d.labels.dims[0] != d.images.dims[0]) {
    error = "'" + labels + "' has " + std::to_string(d.labels.dims[0]) + " labels for " +
            std::to_string(d.images.dims[0]) + " images";
    return false;
  }
  for (uint8_t l : d.labels.data)
    if (l > 9) {
      error = "'" + labels + "' has a label " + std::to_string(l) + " outside 0..9";
      return false;
    }
  return true;
}

/// Compiles `model` (an ONNX file) with --train into `lib`, its batch dim
/// set to `batch` when symbolic. Returns the batch the library has.
bool compileForTraining(const std::string &model, const std::string &lib,
                        const dlc::CompileOptions::Training &train, int64_t &batch,
                        std::string &error) {
  onnx::ModelProto proto;
  {
    std::ifstream in(model, std::ios::binary);
    if (!in || !proto.ParseFromIstream(&in) || proto.graph().input_size() == 0) {
      error = "cannot read the ONNX model '" + model + "'";
      return false;
    }
  }
  dlc::ImportOptions importOpts;
  importOpts.trainable = true;
  const auto &in = proto.graph().input(0);
  const auto &shape = in.type().tensor_type().shape();
  if (shape.dim_size() > 0 && !shape.dim(0).has_dim_value()) {
    std::vector<int64_t> dims{batch};
    for (int i = 1; i < shape.dim_size(); ++i)
      dims.push_back(shape.dim(i).dim_value());
    importOpts.inputShapes[in.name()] = dims;
  } else if (shape.dim_size() > 0) {
    batch = shape.dim(0).dim_value();
  }
  dlc::CompileOptions opts;
  opts.output = lib;
  opts.train = train;
  opts.train.enabled = true;
  return dlc::resolveTarget("native", opts.target, error) &&
         compileOnnxFile(model, importOpts, opts, error);
}

/// The loss/accuracy curve as an SVG line chart: training loss (left axis)
/// every few steps, test accuracy (right axis) per epoch.
std::string svgPlot(const std::vector<std::pair<double, double>> &loss,
                    const std::vector<double> &accuracy) {
  const double w = 640, h = 360, l = 60, r = 60, t = 30, b = 45;
  double maxLoss = 0, epochs = std::max<size_t>(1, accuracy.size());
  for (auto &p : loss)
    maxLoss = std::max(maxLoss, p.second);
  maxLoss = maxLoss > 0 ? maxLoss * 1.05 : 1;
  auto x = [&](double e) { return l + (w - l - r) * e / epochs; };
  auto yl = [&](double v) { return t + (h - t - b) * (1 - v / maxLoss); };
  auto ya = [&](double a) { return t + (h - t - b) * (1 - a / 100); };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"360\" "
                  "font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"640\" height=\"360\" fill=\"white\"/>\n";
  char buf[256];
  snprintf(buf, sizeof(buf),
           "<path d=\"M%g %g V%g H%g V%g\" fill=\"none\" stroke=\"black\"/>\n", l, t, h - b,
           w - r, t);
  s += buf;
  for (int e = 0; e <= (int)epochs; ++e) {
    snprintf(buf, sizeof(buf), "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%d</text>\n", x(e),
             h - b + 16, e);
    s += buf;
  }
  for (int i = 0; i <= 4; ++i) {
    snprintf(buf, sizeof(buf),
             "<text x=\"%g\" y=\"%g\" text-anchor=\"end\" fill=\"#1f77b4\">%.2f</text>\n"
             "<text x=\"%g\" y=\"%g\" fill=\"#d62728\">%d%%</text>\n",
             l - 6, yl(maxLoss * i / 4) + 4, maxLoss * i / 4, w - r + 6, ya(25.0 * i) + 4,
             25 * i);
    s += buf;
  }
  auto polyline = [&](const char *color, const std::vector<std::pair<double, double>> &pts,
                      auto yOf) {
    std::string p = "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" points=\"";
    for (auto &pt : pts) {
      snprintf(buf, sizeof(buf), "%.1f,%.1f ", x(pt.first), yOf(pt.second));
      p += buf;
    }
    return p + "\"/>\n";
  };
  s += polyline("#1f77b4", loss, yl);
  std::vector<std::pair<double, double>> acc;
  for (size_t e = 0; e < accuracy.size(); ++e)
    acc.push_back({e + 1.0, accuracy[e]});
  s += polyline("#d62728", acc, ya);
  snprintf(buf, sizeof(buf),
           "<text x=\"%g\" y=\"18\" fill=\"#1f77b4\">training loss</text>\n"
           "<text x=\"%g\" y=\"18\" text-anchor=\"end\" fill=\"#d62728\">test accuracy</text>\n"
           "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">epoch</text>\n</svg>\n",
           l, w - r, (l + w - r) / 2, h - 8);
  return s + buf;
}

bool writeFile(const std::string &path, const std::string &text, std::string &error) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      error = "cannot write '" + path + "'";
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    error = "cannot write '" + path + "': " + ec.message();
  return !ec;
}
} // namespace

int dlc::trainCommand(int argc, char **argv) {
  std::string model, dataset, dataDir = "/usr/share/datasets/fashion-mnist", save, value, error;
  std::string logDir = ".";
  CompileOptions::Training train;
  double lr = 0.05;
  int64_t batch = 64, epochs = 1, threads = 0;
  unsigned long seed = 0;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    double num = 0;
    auto number = [&](const char *flag, double lo) {
      if (!parseNumber(value, num) || num < lo) {
        fail(std::string(flag) + " expects a number >= " + std::to_string((int)lo) + " (got '" +
             value + "')");
        return false;
      }
      return true;
    };
    if (optionValue(argc, argv, i, "--dataset", value)) {
      dataset = value;
    } else if (optionValue(argc, argv, i, "--data-dir", value)) {
      dataDir = value;
    } else if (optionValue(argc, argv, i, "--loss", value)) {
      if (value != "softmax-cross-entropy" && value != "mse")
        return fail("--loss must be softmax-cross-entropy or mse (got '" + value + "')");
      train.loss = value;
    } else if (optionValue(argc, argv, i, "--optimizer", value)) {
      if (value != "sgd" && value != "adam")
        return fail("--optimizer must be sgd or adam (got '" + value + "')");
      train.optimizer = value;
    } else if (optionValue(argc, argv, i, "--momentum", value)) {
      if (!number("--momentum", 0))
        return 1;
      train.momentum = num;
    } else if (optionValue(argc, argv, i, "--weight-decay", value)) {
      if (!number("--weight-decay", 0))
        return 1;
      train.weightDecay = num;
    } else if (optionValue(argc, argv, i, "--lr", value)) {
      if (!number("--lr", 0))
        return 1;
      lr = num;
    } else if (optionValue(argc, argv, i, "--batch", value)) {
      if (!number("--batch", 1))
        return 1;
      batch = (int64_t)num;
    } else if (optionValue(argc, argv, i, "--epochs", value)) {
      if (!number("--epochs", 1))
        return 1;
      epochs = (int64_t)num;
    } else if (optionValue(argc, argv, i, "--seed", value)) {
      if (!number("--seed", 0))
        return 1;
      seed = (unsigned long)num;
    } else if (optionValue(argc, argv, i, "--threads", value)) {
      if (!number("--threads", 0))
        return 1;
      threads = (int64_t)num;
    } else if (optionValue(argc, argv, i, "--save", value)) {
      save = value;
    } else if (optionValue(argc, argv, i, "--log-dir", value)) {
      logDir = value;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'");
    } else if (model.empty()) {
      model = arg;
    } else {
      return fail("more than one model given ('" + model + "', '" + arg + "')");
    }
  }
  if (model.empty())
    return fail("dlc train MODEL.onnx|TRAIN.so --dataset fashion-mnist [options]");
  if (dataset != "fashion-mnist")
    return fail("--dataset must be fashion-mnist (got '" + dataset + "')");
  if (!save.empty() && fs::exists(save) && fs::equivalent(save, model))
    return fail("--save '" + save + "' is the model; refusing to overwrite it");

  Dataset trainSet, testSet;
  if (!loadSplit(dataDir, "train", trainSet, error) || !loadSplit(dataDir, "t10k", testSet, error))
    return fail(error + " (install Debian's dataset-fashion-mnist or give --data-dir)");

  // A train library: given, or compiled here into a temporary directory.
  std::string lib = model;
  llvm::SmallString<128> tmpDir;
  if (fs::path(model).extension() != ".so") {
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("dlc-train", tmpDir))
      return fail("cannot create a temporary directory: " + ec.message());
    lib = (tmpDir + "/train.so").str();
    fprintf(stderr, "dlc: compiling %s for training (%s, %s)\n", model.c_str(),
            train.loss.c_str(), train.optimizer.c_str());
    if (!compileForTraining(model, lib, train, batch, error)) {
      fs::remove_all(tmpDir.str().str());
      return fail(error);
    }
  }
  Library L;
  bool opened = L.open(lib, error);
  if (!tmpDir.empty())
    fs::remove_all(tmpDir.str().str()); // dlopen keeps the mapping
  if (!opened)
    return fail(error);
  if (!L.trainStep || !L.sig.contains("training"))
    return fail("'" + lib + "' was compiled without --train");

  const auto &in = L.sig["inputs"][0];
  const auto &labelSig = L.sig["training"]["labels"][0];
  std::vector<int64_t> inShape = in["shape"], labelShape = labelSig["shape"];
  batch = inShape[0];
  int64_t perSample = 1;
  for (size_t i = 1; i < inShape.size(); ++i)
    perSample *= inShape[i];
  if (perSample != 784 || in["dtype"] != "float32")
    return fail("the model's input '" + in["name"].get<std::string>() +
                "' must be float32 [N,784] or [N,1,28,28] for Fashion-MNIST");
  bool classLabels = labelSig["dtype"] == "int64";
  int64_t numOut = L.sig["outputs"][0]["shape"][1];
  if (numOut != 10)
    return fail("the model's first output must have 10 classes, not " + std::to_string(numOut));

  dlc_model *m = nullptr;
  if (L.create(&m, nullptr, 0) != DLC_OK)
    return fail(L.lastError(nullptr));
  L.setThreads(m, (int)threads);
  if (!save.empty() && fs::exists(save))
    fprintf(stderr, "dlc: note: '%s' will be replaced at the end of training\n", save.c_str());

  std::vector<float> x(batch * 784), y(batch * 10), oneHot(batch * 10);
  std::vector<int64_t> labels(batch);
  std::string inName = in["name"], labelName = labelSig["name"];
  std::string outName = L.sig["outputs"][0]["name"];
  dlc_tensor ts[2] = {{inName.c_str(), DLC_FLOAT32, (int32_t)inShape.size(), inShape.data(), x.data()},
                      {labelName.c_str(), classLabels ? DLC_INT64 : DLC_FLOAT32,
                       (int32_t)labelShape.size(), labelShape.data(),
                       classLabels ? (void *)labels.data() : (void *)oneHot.data()}};
  std::vector<int64_t> outShape = L.sig["outputs"][0]["shape"];
  dlc_tensor out{outName.c_str(), DLC_FLOAT32, 2, outShape.data(), y.data()};
  auto fill = [&](const Dataset &d, const std::vector<int64_t> &order, int64_t first,
                  int64_t n) {
    std::fill(x.begin(), x.end(), 0.0f);
    std::fill(oneHot.begin(), oneHot.end(), 0.0f);
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = order[first + i];
      const uint8_t *px = &d.images.data[s * 784];
      for (int j = 0; j < 784; ++j)
        x[i * 784 + j] = px[j] / 255.0f;
      labels[i] = d.labels.data[s];
      oneHot[i * 10 + labels[i]] = 1.0f;
    }
  };

  std::mt19937_64 rng(seed);
  std::vector<int64_t> order(trainSet.count()), testOrder(testSet.count());
  std::iota(order.begin(), order.end(), 0);
  std::iota(testOrder.begin(), testOrder.end(), 0);
  int64_t steps = trainSet.count() / batch; // full batches, as drop_last
  std::vector<std::pair<double, double>> lossCurve;
  std::vector<double> accuracies;
  std::string csv = "epoch,train_loss,test_accuracy,train_seconds,samples_per_second\n";
  bool tty = isatty(2);
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    double sum = 0, window = 0, seconds = 0;
    int windowSteps = 0;
    for (int64_t s = 0; s < steps; ++s) {
      fill(trainSet, order, s * batch, batch);
      double loss = 0;
      auto t0 = std::chrono::steady_clock::now();
      if (L.trainStep(m, ts, 2, lr, &loss) != DLC_OK) {
        std::string msg = L.lastError(m);
        L.destroy(m);
        return fail("train step: " + msg);
      }
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!std::isfinite(loss)) {
        L.destroy(m);
        return fail("the loss diverged (" + std::to_string(loss) + ") at epoch " +
                    std::to_string(epoch) + ", step " + std::to_string(s + 1) +
                    "; try a smaller --lr");
      }
      sum += loss;
      window += loss;
      if (++windowSteps == 50 || s + 1 == steps) {
        lossCurve.push_back({epoch - 1 + (s + 1.0) / steps, window / windowSteps});
        window = 0;
        windowSteps = 0;
      }
      if (tty && (s % 20 == 0 || s + 1 == steps)) {
        int done = (int)(30 * (s + 1) / steps);
        fprintf(stderr, "\repoch %lld [%.*s%*s] %3d%% loss %.4f %.0f samples/s",
                (long long)epoch, done, "##############################", 30 - done, "",
                (int)(100 * (s + 1) / steps), sum / (s + 1), (s + 1) * batch / seconds);
      }
    }
    if (tty)
      fprintf(stderr, "\n");
    // Test accuracy through the inference entry, the last batch padded.
    int64_t correct = 0;
    for (int64_t first = 0; first < testSet.count(); first += batch) {
      int64_t n = std::min(batch, testSet.count() - first);
      fill(testSet, testOrder, first, n);
      if (L.run(m, ts, 1, &out, 1) != DLC_OK) {
        std::string msg = L.lastError(m);
        L.destroy(m);
        return fail("evaluation: " + msg);
      }
      for (int64_t i = 0; i < n; ++i)
        correct += std::max_element(&y[i * 10], &y[i * 10 + 10]) - &y[i * 10] == labels[i];
    }
    double accuracy = 100.0 * correct / testSet.count();
    accuracies.push_back(accuracy);
    printf("epoch %lld loss %.4f test accuracy %.2f%%\n", (long long)epoch, sum / steps,
           accuracy);
    fflush(stdout);
    char line[160];
    snprintf(line, sizeof(line), "%lld,%.6f,%.4f,%.3f,%.1f\n", (long long)epoch, sum / steps,
             accuracy, seconds, steps * batch / seconds);
    csv += line;
    if (!writeFile(logDir + "/train_curve.csv", csv, error) ||
        !writeFile(logDir + "/train_curve.svg", svgPlot(lossCurve, accuracies), error)) {
      L.destroy(m);
      return fail(error);
    }
  }
  int rc = 0;
  if (!save.empty() && L.saveParameters(m, save.c_str()) != DLC_OK)
    rc = fail(L.lastError(m));
  L.destroy(m);
  return rc;
}

int dlc::exportOnnxCommand(int argc, char **argv) {
  std::string model, params, output, value;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionValue(argc, argv, i, "-o", value))
      output = value;
    else if (!arg.empty() && arg[0] == '-')
      return fail("unknown option '" + arg + "'");
    else if (model.empty())
      model = arg;
    else if (params.empty())
      params = arg;
    else
      return fail("unexpected argument '" + arg + "'");
  }
  if (model.empty() || params.empty() || output.empty())
    return fail("dlc export-onnx MODEL.onnx PARAMS.bin -o OUT.onnx");
  std::error_code ec;
  if (fs::exists(output, ec) && (fs::equivalent(output, model, ec) || fs::equivalent(output, params, ec)))
    return fail("output '" + output + "' is an input; refusing to overwrite it");
  onnx::ModelProto proto;
  {
    std::ifstream in(model, std::ios::binary);
    if (!in || !proto.ParseFromIstream(&in))
      return fail("cannot read the ONNX model '" + model + "'");
  }
  std::ifstream in(params, std::ios::binary);
  char magic[8];
  uint32_t count = 0;
  if (!in.read(magic, 8) || memcmp(magic, "DLCPARM1", 8) != 0 ||
      !in.read(reinterpret_cast<char *>(&count), 4))
    return fail("'" + params + "' is not a dlc parameter file");
  auto *graph = proto.mutable_graph();
  for (uint32_t e = 0; e < count; ++e) {
    uint32_t len = 0;
    int32_t dtype = 0, rank = 0;
    uint64_t bytes = 0;
    std::string name;
    if (!in.read(reinterpret_cast<char *>(&len), 4) || len > 4096)
      return fail("'" + params + "' is truncated");
    name.resize(len);
    std::vector<int64_t> dims;
    if (!in.read(name.data(), len) || !in.read(reinterpret_cast<char *>(&dtype), 4) ||
        !in.read(reinterpret_cast<char *>(&rank), 4) || rank < 0 || rank > 16)
      return fail("'" + params + "' is truncated");
    dims.resize(rank);
    if (!in.read(reinterpret_cast<char *>(dims.data()), 8 * rank) ||
        !in.read(reinterpret_cast<char *>(&bytes), 8))
      return fail("'" + params + "' is truncated");
    std::string data(bytes, '\0');
    if (!in.read(data.data(), bytes))
      return fail("'" + params + "' is truncated");
    onnx::TensorProto *init = nullptr;
    for (auto &t : *graph->mutable_initializer())
      if (t.name() == name)
        init = &t;
    if (!init)
      return fail("parameter '" + name + "' is not an initializer of '" + model + "'");
    std::vector<int64_t> have(init->dims().begin(), init->dims().end());
    if (init->data_type() != dtype || have != dims)
      return fail("parameter '" + name + "' does not match the model's initializer (dtype or shape)");
    init->clear_float_data();
    init->clear_double_data();
    init->clear_external_data();
    init->set_data_location(onnx::TensorProto::DEFAULT);
    init->set_raw_data(data);
  }
  std::string text;
  if (!proto.SerializeToString(&text))
    return fail("cannot serialize the model");
  std::string error;
  if (!writeFile(output, text, error))
    return fail(error);
  return 0;
}
