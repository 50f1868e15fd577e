// npy_test.cc - tests for runtime/tensor/npy.{h,cc}.
//
// The byte-level fixtures are written out by hand exactly as numpy's
// numpy.lib.format writes them, so these tests do not need numpy.
#include "runtime/tensor/npy.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace spectral {
namespace {

/// Passes when `text` contains `part`; prints both otherwise.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

const NpyDtype kAllDtypes[] = {NpyDtype::kFloat32,   NpyDtype::kFloat64,    NpyDtype::kInt32,
                               NpyDtype::kInt64,     NpyDtype::kComplex64,  NpyDtype::kComplex128,
                               NpyDtype::kBool};

/// The 10-byte v1.0 preamble followed by `dict`, padded with spaces and '\n'
/// to a multiple of 64 bytes, the way numpy's _wrap_header does it.
std::string v1_header(const std::string& dict) {
  size_t hlen = dict.size() + 1;
  size_t padlen = 64 - (10 + hlen) % 64;
  size_t total = hlen + padlen;
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(total & 0xFF);
  out += static_cast<char>(total >> 8);
  return out + dict + std::string(padlen, ' ') + "\n";
}

/// A v2.0/v3.0 preamble (4-byte length) followed by `dict` and padding.
std::string v2_header(const std::string& dict, char major = 2) {
  size_t hlen = dict.size() + 1;
  size_t padlen = 64 - (12 + hlen) % 64;
  size_t total = hlen + padlen;
  std::string out("\x93NUMPY", 6);
  out += major;
  out += '\0';
  for (int i = 0; i < 4; ++i) out += static_cast<char>((total >> (8 * i)) & 0xFF);
  return out + dict + std::string(padlen, ' ') + "\n";
}

std::string float_bytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "npy_test.XXXXXX";
    ASSERT_NE(mkdtemp(&tmpl[0]), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string write_file(const std::string& name, const std::string& bytes) const {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  static std::string read_file(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::vector<std::string> list_dir() const {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
    closedir(d);
    return names;
  }

  /// Reads a file that must fail; returns the error message.
  std::string read_error(const std::string& p) const {
    NpyArray a;
    std::string error;
    EXPECT_FALSE(read_npy(p, &a, &error));
    EXPECT_EQ(error.rfind(p + ": ", 0), 0u) << "error does not start with the path: " << error;
    return error;
  }

  std::string dir_;
};

NpyArray make_array(NpyDtype dtype, std::vector<int64_t> shape) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.bytes.resize(static_cast<size_t>(a.element_count() * npy_dtype_size(dtype)));
  for (size_t i = 0; i < a.bytes.size(); ++i)
    a.bytes[i] = dtype == NpyDtype::kBool ? (i * 7 % 3 == 0) : static_cast<uint8_t>(i * 37 + 11);
  return a;
}

TEST(NpyDtypeTest, NamesAndSizes) {
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kFloat32), "float32");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kFloat64), "float64");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kInt32), "int32");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kInt64), "int64");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kComplex64), "complex64");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kComplex128), "complex128");
  EXPECT_STREQ(npy_dtype_name(NpyDtype::kBool), "bool");
  EXPECT_EQ(npy_dtype_size(NpyDtype::kFloat32), 4);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kFloat64), 8);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kInt32), 4);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kInt64), 8);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kComplex64), 8);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kComplex128), 16);
  EXPECT_EQ(npy_dtype_size(NpyDtype::kBool), 1);
}

TEST(NpyDtypeTest, MatchesTheTensorDtypes) {
  for (DType dtype : {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32,
                      DType::kFloat64, DType::kComplex64, DType::kComplex128}) {
    EXPECT_EQ(dtype_of_npy(npy_dtype_of(dtype)), dtype) << dtype_name(dtype);
    EXPECT_EQ(npy_dtype_size(npy_dtype_of(dtype)), dtype_size(dtype)) << dtype_name(dtype);
  }
  EXPECT_EQ(npy_dtype_of(DType::kComplex64), NpyDtype::kComplex64);
  EXPECT_EQ(npy_dtype_of(DType::kBool), NpyDtype::kBool);
}

TEST(NpyArrayTest, ElementCount) {
  NpyArray a;
  EXPECT_EQ(a.element_count(), 1);  // 0-d scalar
  a.shape = {5};
  EXPECT_EQ(a.element_count(), 5);
  a.shape = {2, 3, 4};
  EXPECT_EQ(a.element_count(), 24);
  a.shape = {3, 0, 2};
  EXPECT_EQ(a.element_count(), 0);
  a.shape = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(a.element_count(), -1);  // overflows int64
  a.shape = {2, -1};
  EXPECT_EQ(a.element_count(), -1);
}

TEST_F(NpyTest, RoundTripsEveryDtype) {
  for (NpyDtype dtype : kAllDtypes) {
    SCOPED_TRACE(npy_dtype_name(dtype));
    NpyArray a = make_array(dtype, {2, 3});
    std::string error;
    std::string p = path(std::string(npy_dtype_name(dtype)) + ".npy");
    ASSERT_TRUE(write_npy(p, a, &error)) << error;
    NpyArray b;
    ASSERT_TRUE(read_npy(p, &b, &error)) << error;
    EXPECT_EQ(b.dtype, dtype);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.bytes, a.bytes);
  }
}

TEST_F(NpyTest, RoundTripsShapes) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {2, 3, 4}, {0}, {3, 0, 2}, {1}};
  for (const auto& shape : shapes) {
    for (NpyDtype dtype : {NpyDtype::kFloat32, NpyDtype::kComplex128}) {
      NpyArray a = make_array(dtype, shape);
      std::string error;
      std::string p = path("shape.npy");
      ASSERT_TRUE(write_npy(p, a, &error)) << error;
      NpyArray b;
      ASSERT_TRUE(read_npy(p, &b, &error)) << error;
      EXPECT_EQ(b.dtype, dtype);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(b.bytes, a.bytes);
      EXPECT_EQ(b.bytes.size(), static_cast<size_t>(b.element_count() * npy_dtype_size(dtype)));
    }
  }
}

TEST_F(NpyTest, WritesTheSameBytesAsNumpy) {
  // np.save(p, np.arange(6, dtype=np.float32).reshape(2, 3)), checked against numpy 2.4:
  // growth padding of 21 - len("2") spaces, then padding to 128 bytes.
  NpyArray a;
  a.shape = {2, 3};
  std::string data = float_bytes({0, 1, 2, 3, 4, 5});
  a.bytes.assign(data.begin(), data.end());
  std::string error;
  ASSERT_TRUE(write_npy(path("a.npy"), a, &error)) << error;
  std::string expected = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                         std::string(20 + 38, ' ') + "\n" + data;
  ASSERT_EQ(expected.size(), 128u + 24u);
  EXPECT_EQ(read_file(path("a.npy")), expected);
}

TEST_F(NpyTest, WritesHeadersAlignedTo64) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {0, 7}, {1234567890123, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
  for (const auto& shape : shapes) {
    NpyArray a;
    a.dtype = NpyDtype::kBool;
    a.shape = shape;
    a.bytes.resize(static_cast<size_t>(a.element_count()));
    std::string error;
    ASSERT_TRUE(write_npy(path("h.npy"), a, &error)) << error;
    std::string bytes = read_file(path("h.npy"));
    size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
    EXPECT_EQ(bytes[6], 1);
    EXPECT_EQ((10 + header_len) % 64, 0u);
    EXPECT_EQ(bytes.size(), 10 + header_len + a.bytes.size());
    EXPECT_EQ(bytes[10 + header_len - 1], '\n');
    EXPECT_EQ(bytes.substr(10, 16), "{'descr': '|b1',");
  }
}

TEST_F(NpyTest, ReadsNumpyFileWithGrowthPadding) {
  std::string p = write_file(
      "np.npy", v1_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                          std::string(20, ' ')) +
                    float_bytes({1.5f, -2, 3, 4, 5, 6.25f}));
  NpyArray a;
  std::string error;
  ASSERT_TRUE(read_npy(p, &a, &error)) << error;
  EXPECT_EQ(a.dtype, NpyDtype::kFloat32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(a.bytes.size(), 24u);
  float values[6];
  std::memcpy(values, a.bytes.data(), sizeof(values));
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(values[5], 6.25f);
}

TEST_F(NpyTest, ReadsOldNumpyHeaderWithoutGrowthPadding) {
  // Older numpy aligned to 16 bytes and had no growth padding (80-byte header);
  // np.save(p, np.array([True, False, True])).
  std::string dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  std::string header = std::string("\x93NUMPY\x01\x00\x46\x00", 10) + dict;
  header += std::string(80 - 1 - header.size(), ' ') + "\n";
  std::string p = write_file("old.npy", header + std::string("\x01\x00\x01", 3));
  NpyArray a;
  std::string error;
  ASSERT_TRUE(read_npy(p, &a, &error)) << error;
  EXPECT_EQ(a.dtype, NpyDtype::kBool);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(a.bytes, (std::vector<uint8_t>{1, 0, 1}));
}

TEST_F(NpyTest, ParsesHeaderVariants) {
  struct Case {
    std::string dict;
    NpyDtype dtype;
    std::vector<int64_t> shape;
  };
  const Case cases[] = {
      {"{'shape': (4,), 'fortran_order': False, 'descr': '<i4'}", NpyDtype::kInt32, {4}},
      {"{ \"descr\" : \"<i8\" , \"fortran_order\":False,\"shape\":( 2 , 2 ) }", NpyDtype::kInt64,
       {2, 2}},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (), }", NpyDtype::kFloat64, {}},
      {"{'descr': '=c8', 'fortran_order': False, 'shape': (1, 2,), }", NpyDtype::kComplex64,
       {1, 2}},
      {"{'descr': '<c16', 'fortran_order': False, 'shape': (3L,), }", NpyDtype::kComplex128, {3}},
      {"{'descr': '<b1', 'fortran_order': False, 'shape': (0, 5), }", NpyDtype::kBool, {0, 5}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    NpyArray expected;
    expected.dtype = c.dtype;
    expected.shape = c.shape;
    std::string data(static_cast<size_t>(expected.element_count() * npy_dtype_size(c.dtype)), 'x');
    std::string p = write_file("v.npy", v1_header(c.dict) + data);
    NpyArray a;
    std::string error;
    ASSERT_TRUE(read_npy(p, &a, &error)) << error;
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, c.shape);
    EXPECT_EQ(a.bytes.size(), data.size());
  }
}

TEST_F(NpyTest, ReadsVersion2And3Headers) {
  for (char major : {2, 3}) {
    std::string p = write_file(
        "v2.npy",
        v2_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", major) +
            float_bytes({7, 8}));
    NpyArray a;
    std::string error;
    ASSERT_TRUE(read_npy(p, &a, &error)) << error;
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(a.bytes.size(), 8u);
  }
}

TEST_F(NpyTest, WritesVersion2WhenHeaderExceeds65535Bytes) {
  NpyArray a;
  a.dtype = NpyDtype::kInt32;
  a.shape.assign(25000, 1);  // "1, " per dim: a ~75 kB header
  a.bytes = {1, 2, 3, 4};
  std::string error;
  ASSERT_TRUE(write_npy(path("big.npy"), a, &error)) << error;
  std::string bytes = read_file(path("big.npy"));
  ASSERT_GT(bytes.size(), 65536u);
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ(bytes[7], 0);
  size_t header_len = 0;
  for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<uint8_t>(bytes[8 + i]);
  EXPECT_GT(header_len, 65535u);
  EXPECT_EQ((12 + header_len) % 64, 0u);
  EXPECT_EQ(bytes.size(), 12 + header_len + 4);
  NpyArray b;
  ASSERT_TRUE(read_npy(path("big.npy"), &b, &error)) << error;
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.bytes, a.bytes);
}

TEST_F(NpyTest, OverwritesAnExistingFile) {
  std::string error;
  ASSERT_TRUE(write_npy(path("o.npy"), make_array(NpyDtype::kInt64, {100}), &error)) << error;
  ASSERT_TRUE(write_npy(path("o.npy"), make_array(NpyDtype::kInt32, {2}), &error)) << error;
  NpyArray b;
  ASSERT_TRUE(read_npy(path("o.npy"), &b, &error)) << error;
  EXPECT_EQ(b.dtype, NpyDtype::kInt32);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(list_dir(), (std::vector<std::string>{"o.npy"}));
}

TEST_F(NpyTest, WritesThroughASymlinkToItsTarget) {
  std::string error;
  ASSERT_TRUE(write_npy(path("target.npy"), make_array(NpyDtype::kInt64, {4}), &error)) << error;
  ASSERT_EQ(symlink("target.npy", path("link.npy").c_str()), 0) << std::strerror(errno);
  ASSERT_TRUE(write_npy(path("link.npy"), make_array(NpyDtype::kFloat32, {3}), &error)) << error;
  struct stat st;
  ASSERT_EQ(lstat(path("link.npy").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  NpyArray b;
  ASSERT_TRUE(read_npy(path("target.npy"), &b, &error)) << error;
  EXPECT_EQ(b.dtype, NpyDtype::kFloat32);
}

TEST_F(NpyTest, WritesIntoADeviceWithoutReplacingIt) {
  std::string error;
  ASSERT_TRUE(write_npy("/dev/null", make_array(NpyDtype::kFloat64, {5}), &error)) << error;
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a device";
}

const char kGoodDict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST_F(NpyTest, ErrorMissingFile) {
  std::string p = path("nope.npy");
  EXPECT_TRUE(Contains(read_error(p), "No such file or directory"));
}

TEST_F(NpyTest, ErrorDirectory) {
  EXPECT_TRUE(Contains(read_error(dir_), "not a regular file"));
}

TEST_F(NpyTest, ErrorBadMagic) {
  EXPECT_TRUE(Contains(read_error(write_file("m.npy", "PK\x03\x04 this is a zip")), "not a .npy file"));
  EXPECT_TRUE(Contains(read_error(write_file("e.npy", "")), "not a .npy file"));
}

TEST_F(NpyTest, ErrorUnsupportedVersion) {
  std::string bytes = v1_header(kGoodDict) + float_bytes({1, 2, 3, 4, 5, 6});
  bytes[6] = 4;
  EXPECT_TRUE(Contains(read_error(write_file("v.npy", bytes)), "version 4.0"));
  bytes[6] = 1;
  bytes[7] = 1;
  EXPECT_TRUE(Contains(read_error(write_file("v.npy", bytes)), "version 1.1"));
}

TEST_F(NpyTest, ErrorTruncatedHeader) {
  std::string full = v1_header(kGoodDict);
  EXPECT_TRUE(Contains(read_error(write_file("t.npy", full.substr(0, 9))), "truncated header"));
  std::string err = read_error(write_file("t.npy", full.substr(0, 50)));
  EXPECT_TRUE(Contains(err, "truncated header"));
  EXPECT_TRUE(Contains(err, "118"));  // what the header length field says
  EXPECT_TRUE(Contains(err, "40"));   // what the file has after the preamble
}

TEST_F(NpyTest, ErrorTruncatedData) {
  std::string p = write_file("t.npy", v1_header(kGoodDict) + float_bytes({1, 2, 3, 4, 5}));
  std::string err = read_error(p);
  EXPECT_TRUE(Contains(err, "truncated data"));
  EXPECT_TRUE(Contains(err, "needs 24 bytes"));
  EXPECT_TRUE(Contains(err, "has 20"));
}

TEST_F(NpyTest, ErrorExtraData) {
  std::string p = write_file("x.npy", v1_header(kGoodDict) + float_bytes({1, 2, 3, 4, 5, 6, 7}));
  std::string err = read_error(p);
  EXPECT_TRUE(Contains(err, "trailing data"));
  EXPECT_TRUE(Contains(err, "needs 24 bytes"));
  EXPECT_TRUE(Contains(err, "has 28"));
}

TEST_F(NpyTest, ErrorBigEndian) {
  std::string p = write_file(
      "b.npy", v1_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }") +
                   std::string(24, '\0'));
  std::string err = read_error(p);
  EXPECT_TRUE(Contains(err, "big-endian"));
  EXPECT_TRUE(Contains(err, ">f4"));
}

TEST_F(NpyTest, ErrorFortranOrder) {
  std::string p = write_file(
      "f.npy", v1_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }") +
                   std::string(24, '\0'));
  std::string err = read_error(p);
  EXPECT_TRUE(Contains(err, "Fortran"));
  EXPECT_TRUE(Contains(err, "np.ascontiguousarray"));
}

TEST_F(NpyTest, ErrorUnknownDtype) {
  for (const char* descr : {"<u2", "<f2", "|O", "<U5", "|u1", "<f16", "f4"}) {
    SCOPED_TRACE(descr);
    std::string p = write_file(
        "d.npy", v1_header(std::string("{'descr': '") + descr +
                           "', 'fortran_order': False, 'shape': (1,), }") +
                     std::string(4, '\0'));
    std::string err = read_error(p);
    EXPECT_TRUE(Contains(err, "unsupported dtype"));
    EXPECT_TRUE(Contains(err, descr));
  }
}

TEST_F(NpyTest, ErrorStructuredDtype) {
  std::string p = write_file(
      "s.npy",
      v1_header("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }") +
          std::string(8, '\0'));
  EXPECT_TRUE(Contains(read_error(p), "structured dtypes are not supported"));
}

TEST_F(NpyTest, ErrorAbsurdShape) {
  // Product overflows int64: must fail before allocating anything.
  std::string p = write_file(
      "a.npy", v1_header("{'descr': '<f8', 'fortran_order': False, "
                         "'shape': (4294967296, 4294967296, 4294967296), }"));
  EXPECT_TRUE(Contains(read_error(p), "too large"));
  // A single dim that does not fit in int64.
  p = write_file("a.npy", v1_header("{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (99999999999999999999,), }"));
  EXPECT_TRUE(Contains(read_error(p), "overflows int64"));
  // Fits in int64 but far exceeds the file: reported as truncated, not allocated.
  p = write_file("a.npy", v1_header("{'descr': '<c16', 'fortran_order': False, "
                                    "'shape': (1000000000000000,), }") + "abc");
  std::string err = read_error(p);
  EXPECT_TRUE(Contains(err, "needs 16000000000000000 bytes"));
  EXPECT_TRUE(Contains(err, "has 3"));
  // Header length field far larger than the file.
  std::string bytes = v1_header(kGoodDict);
  bytes[8] = '\xff';
  bytes[9] = '\xff';
  EXPECT_TRUE(Contains(read_error(write_file("a.npy", bytes)), "truncated header"));
  std::string v2 = v2_header(kGoodDict);
  v2[11] = '\x7f';
  EXPECT_TRUE(Contains(read_error(write_file("a.npy", v2)), "truncated header"));
}

TEST_F(NpyTest, ErrorMalformedHeaders) {
  struct Case {
    const char* dict;
    const char* message;
  };
  const Case cases[] = {
      {"", "not a dict"},
      {"['descr', '<f4']", "not a dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False}", "no 'shape'"},
      {"{'fortran_order': False, 'shape': (2, 3)}", "no 'descr'"},
      {"{'descr': '<f4', 'shape': (2, 3)}", "no 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "duplicate"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", "negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}", "tuple of integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} junk", "after the header"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (2, 3)}", "'descr' is not a string"},
      {"{'descr: '<f4'}", "expected ':'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    std::string p = write_file("mal.npy", v1_header(c.dict) + std::string(24, '\0'));
    std::string err = read_error(p);
    EXPECT_TRUE(Contains(err, "malformed header"));
    EXPECT_TRUE(Contains(err, c.message));
  }
}

TEST_F(NpyTest, WriteToMissingDirectoryFailsCleanly) {
  std::string p = path("no/such/dir/a.npy");
  std::string error;
  EXPECT_FALSE(write_npy(p, make_array(NpyDtype::kFloat32, {2}), &error));
  EXPECT_EQ(error.rfind(p + ": ", 0), 0u) << error;
  EXPECT_TRUE(Contains(error, "No such file or directory"));
  EXPECT_TRUE(list_dir().empty());
}

TEST_F(NpyTest, WriteUnderARegularFileFailsCleanly) {
  write_file("plain", "x");
  std::string p = path("plain/a.npy");
  std::string error;
  EXPECT_FALSE(write_npy(p, make_array(NpyDtype::kFloat32, {2}), &error));
  EXPECT_TRUE(Contains(error, p));
  EXPECT_TRUE(Contains(error, "Not a directory"));
  EXPECT_EQ(list_dir(), (std::vector<std::string>{"plain"}));
}

TEST_F(NpyTest, WriteToReadOnlyDirectoryFailsCleanly) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  std::string ro = path("ro");
  ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
  std::string p = ro + "/a.npy";
  std::string error;
  EXPECT_FALSE(write_npy(p, make_array(NpyDtype::kFloat32, {2}), &error));
  EXPECT_TRUE(Contains(error, p));
  EXPECT_TRUE(Contains(error, "Permission denied"));
  chmod(ro.c_str(), 0755);
  EXPECT_EQ(list_dir(), (std::vector<std::string>{"ro"}));
}

TEST_F(NpyTest, RenameFailureRemovesTheTemporaryFile) {
  // The destination is a non-empty directory, so rename() fails after the
  // temporary file has been written.
  std::string p = path("target");
  ASSERT_EQ(mkdir(p.c_str(), 0755), 0);
  write_file("target/keep", "x");
  std::string error;
  EXPECT_FALSE(write_npy(p, make_array(NpyDtype::kFloat32, {2}), &error));
  EXPECT_EQ(error.rfind(p + ": ", 0), 0u) << error;
  EXPECT_TRUE(Contains(error, "rename"));
  EXPECT_EQ(list_dir(), (std::vector<std::string>{"target"}));
}

TEST_F(NpyTest, WriteRejectsInconsistentArrays) {
  std::string error;
  NpyArray a = make_array(NpyDtype::kFloat64, {2, 3});
  a.bytes.pop_back();
  EXPECT_FALSE(write_npy(path("w.npy"), a, &error));
  EXPECT_TRUE(Contains(error, "needs 48 bytes"));
  EXPECT_TRUE(Contains(error, "47"));
  a.shape = {2, -3};
  EXPECT_FALSE(write_npy(path("w.npy"), a, &error));
  EXPECT_TRUE(Contains(error, "invalid shape"));
  EXPECT_TRUE(list_dir().empty());
}

TEST_F(NpyTest, AcceptSeesTheHeaderAndItsRefusalIsTheError) {
  NpyArray a = make_array(NpyDtype::kInt64, {4, 5});
  std::string error;
  ASSERT_TRUE(write_npy(path("h.npy"), a, &error)) << error;
  NpyDtype seen = NpyDtype::kBool;
  std::vector<int64_t> seenShape;
  auto refuse = [&](NpyDtype dtype, const std::vector<int64_t>& shape, std::string* why) {
    seen = dtype, seenShape = shape;
    *why = "not the array wanted";
    return false;
  };
  NpyArray b;
  EXPECT_FALSE(read_npy(path("h.npy"), &b, &error, refuse));
  EXPECT_EQ(error, "not the array wanted");
  EXPECT_EQ(seen, NpyDtype::kInt64);
  EXPECT_EQ(seenShape, (std::vector<int64_t>{4, 5}));
  EXPECT_TRUE(b.bytes.empty());
  auto take = [](NpyDtype, const std::vector<int64_t>&, std::string*) { return true; };
  ASSERT_TRUE(read_npy(path("h.npy"), &b, &error, take)) << error;
  EXPECT_EQ(b.bytes, a.bytes);
}

}  // namespace
}  // namespace spectral
