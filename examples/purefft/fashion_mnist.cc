// fashion_mnist.cc - reads gzip-compressed IDX files (zlib) into a Dataset.
#include "fashion_mnist.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <sys/stat.h>

namespace purefft {
namespace {

/// A gzip file read whole, at most `most` bytes after the header it checks.
class GzipFile {
 public:
  explicit GzipFile(std::string path) : path_(std::move(path)) {}
  ~GzipFile() {
    if (file_) gzclose(file_);
  }

  spectral::Status open() {
    struct stat info;
    if (stat(path_.c_str(), &info) != 0)
      return spectral::Status::error(
          path_ + ": " + std::strerror(errno) +
          " (install Debian's dataset-fashion-mnist: sudo apt-get install dataset-fashion-mnist, "
          "or pass --data=DIR with the four IDX .gz files)");
    if (!S_ISREG(info.st_mode)) return spectral::Status::error(path_ + ": not a regular file");
    file_ = gzopen(path_.c_str(), "rb");
    if (!file_) return spectral::Status::error(path_ + ": cannot open: " + std::strerror(errno));
    return spectral::Status::ok();
  }

  /// Exactly `bytes` bytes, or an error saying how many there were.
  spectral::Status read(void* out, size_t bytes, const char* what) {
    size_t done = 0;
    while (done < bytes) {
      const unsigned chunk = unsigned(std::min<size_t>(bytes - done, 1u << 30));
      const int got = gzread(file_, static_cast<char*>(out) + done, chunk);
      if (got < 0) {
        int code = 0;
        return spectral::Status::error(path_ + ": corrupted (" + gzerror(file_, &code) +
                                       ") while reading the " + what);
      }
      if (got == 0)
        return spectral::Status::error(path_ + ": truncated: " + std::to_string(done) + " of " +
                                       std::to_string(bytes) + " bytes of the " + what);
      done += size_t(got);
    }
    return spectral::Status::ok();
  }

  /// A big-endian 32-bit header word.
  spectral::Expected<uint32_t> word(const char* what) {
    uint8_t b[4];
    if (spectral::Status status = read(b, 4, what); !status) return status;
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

}  // namespace

spectral::Expected<Dataset> load_fashion_mnist(const std::string& dir, const std::string& split,
                                               int64_t limit) {
  Dataset data;
  GzipFile images(dir + "/" + split + "-images-idx3-ubyte.gz");
  GzipFile labels(dir + "/" + split + "-labels-idx1-ubyte.gz");
  if (spectral::Status status = images.open(); !status) return status;
  if (spectral::Status status = labels.open(); !status) return status;

  spectral::Expected<uint32_t> magic = images.word("header");
  if (!magic) return magic.status();
  if (*magic != 0x00000803)
    return spectral::Status::error(images.path() + ": not an IDX file of uint8 images (magic " +
                                   std::to_string(*magic) + ", expected 2051)");
  uint32_t dims[3];
  for (uint32_t& d : dims) {
    spectral::Expected<uint32_t> value = images.word("header");
    if (!value) return value.status();
    d = *value;
  }
  if (dims[1] != 28 || dims[2] != 28)
    return spectral::Status::error(images.path() + ": images of " + std::to_string(dims[1]) +
                                   " x " + std::to_string(dims[2]) + ", expected 28 x 28");
  magic = labels.word("header");
  if (!magic) return magic.status();
  spectral::Expected<uint32_t> count = labels.word("header");
  if (!count) return count.status();
  if (*magic != 0x00000801)
    return spectral::Status::error(labels.path() + ": not an IDX file of uint8 labels (magic " +
                                   std::to_string(*magic) + ", expected 2049)");
  // Fashion-MNIST has 60000 and 10000: a count far beyond is a damaged
  // header, refused before any allocation.
  constexpr uint32_t kMostImages = 1000000;
  if (dims[0] == 0 || dims[0] > kMostImages)
    return spectral::Status::error(images.path() + ": the header says " + std::to_string(dims[0]) +
                                   " images; expected 1 to " + std::to_string(kMostImages));
  if (*count != dims[0])
    return spectral::Status::error(labels.path() + ": " + std::to_string(*count) +
                                   " labels for " + std::to_string(dims[0]) + " images");

  data.count = limit > 0 ? std::min<int64_t>(limit, dims[0]) : int64_t(dims[0]);
  data.rows = dims[1];
  data.cols = dims[2];
  data.images.resize(size_t(data.count * data.rows * data.cols));
  if (spectral::Status status = images.read(data.images.data(), data.images.size(), "images");
      !status)
    return status;
  std::vector<uint8_t> raw(size_t(data.count));
  if (spectral::Status status = labels.read(raw.data(), raw.size(), "labels"); !status)
    return status;
  data.labels.assign(raw.begin(), raw.end());
  for (int64_t i = 0; i < data.count; ++i)
    if (data.labels[i] >= 10)
      return spectral::Status::error(labels.path() + ": label " + std::to_string(data.labels[i]) +
                                     " of example " + std::to_string(i) + " is not in [0, 10)");
  return data;
}

}  // namespace purefft
