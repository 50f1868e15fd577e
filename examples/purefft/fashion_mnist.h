// fashion_mnist.h - the Fashion-MNIST IDX files (as Debian's dataset-fashion-mnist installs them).
#pragma once

#include <spectral/status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace purefft {

/// The Debian package's directory.
constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct Dataset {
  int64_t count = 0, rows = 0, cols = 0;
  std::vector<uint8_t> images;  // count x rows x cols, row-major
  std::vector<int32_t> labels;  // count, each in [0, 10)
};

/// DIR/<split>-images-idx3-ubyte.gz and DIR/<split>-labels-idx1-ubyte.gz
/// (split "train" or "t10k"), the first `limit` examples (all when <= 0).
/// Errors name the file and what is wrong; a missing file says how to
/// install the package.
spectral::Expected<Dataset> load_fashion_mnist(const std::string& dir, const std::string& split,
                                               int64_t limit);

}  // namespace purefft
