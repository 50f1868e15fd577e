// fft_complex2d.cuh on HostDevice: the complex FFT of one image per block
// with the top-k of its modes in the store, checked against FFTW (double)
// and the ranking it implies, or a gather of given modes (bad indices
// reported); and a scatter of sparse modes (duplicates,
// empty slots, indices in any order) in the load of the inverse, checked
// against a sequential sum in slot order transformed back by FFTW, with bad
// indices reported at their lowest position. Every unit also compiles with
// NVRTC for sm_80 and sm_90 without spills.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "compiler/Planning/FftTables.h"
#include "runtime/device/cuda/nvrtc_compiler.h"

#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

namespace spectral::testing {
namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

/// An image shape and what one test launch does with it.
struct ImageCase {
  int h, w, images, k;
};

std::string case_name(const ::testing::TestParamInfo<ImageCase>& info) {
  const ImageCase& c = info.param;
  return std::to_string(c.images) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) + "_k" +
         std::to_string(c.k);
}

/// The block as fusion sizes it (OpKinds.cpp complexTransform2DRefusal):
/// enough threads for every row's or every column's transform at once, in
/// warps, at most 256.
struct Block {
  int threads, rows_at_once;
};

Block block_for(const ImageCase& c) {
  const int row = int(planning::stockhamThreads(c.w)), col = int(planning::stockhamThreads(c.h));
  const int wanted = std::max(row * c.h, col * c.w);
  const int threads = std::min(256, std::max(32, (wanted + 31) / 32 * 32));
  return {threads, std::min(c.h, threads / row)};
}

/// The columns, then the rows in flight or the scatter's stamps, for
/// complex values of `value` bytes.
size_t shared_bytes(const ImageCase& c, bool scatter, size_t value = sizeof(cfloat)) {
  const size_t rows = size_t(block_for(c).rows_at_once * c.w) * value;
  const size_t stamps = scatter ? size_t(c.h * c.w) * 8 : 0;
  return size_t(c.h * c.w) * value + std::max(rows, stamps);
}

/// A unit's placeholders; `real` is float or double. Each unit asserts that
/// the template needs the shared memory the test gives it (written out:
/// fill does not search what it replaced).
std::map<std::string, std::string> unit_values(const ImageCase& c, const std::string& entry,
                                               const std::string& real, bool scatter) {
  const std::string assertion =
      "  static_assert(spectral_fft::complex2d_shared_bytes<" + std::to_string(c.h) + ", " +
      std::to_string(c.w) + ", " + std::to_string(block_for(c).threads) + ", " + real + ", " +
      std::string(scatter ? "true" : "false") + ">() == " +
      std::to_string(shared_bytes(c, scatter, real == "float" ? 8 : 16)) + ");\n";
  return {{"$H", std::to_string(c.h)},
          {"$W", std::to_string(c.w)},
          {"$T", std::to_string(block_for(c).threads)},
          {"$R", real},
          {"$S", assertion},
          {"$E", entry + "_" + (real == "float" ? "c64_" : "c128_") + std::to_string(c.h) + "x" +
                     std::to_string(c.w)}};
}

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"fft_complex2d.cuh\"\n"
    "SPECTRAL_HOST_PHASED;\n"  // as codegen's: the host runs a block per call
    "using spectral_fft::cplx;\n";

/// A unit of `text` (its entry named $E, after `entry`) with the
/// placeholders of unit_values.
KernelSource image_unit(const ImageCase& c, const std::string& entry, const std::string& real,
                        bool scatter, const std::string& text) {
  const std::map<std::string, std::string> values = unit_values(c, entry, real, scatter);
  return {fill(std::string(kPrelude) + text, values), fill("$E", values), {}};
}

/// The images' elements, row-major.
const char* const kXLoad =
    "struct XLoad {\n  const cplx<$R>* x;\n"
    "  __device__ cplx<$R> operator()(int image, int r, int col) const {\n"
    "    return x[((long long)image * $H + r) * $W + col];\n  }\n};\n";

/// Images from x, the top-k of each one's scaled spectrum into values and
/// indices.
KernelSource topk_unit(const ImageCase& c, const std::string& real = "float") {
  return image_unit(c, "fft2_topk", real, false,
                    std::string(kXLoad) +
                    "extern \"C\" __global__ void $E(const cplx<$R>* x, cplx<$R>* values,\n"
                    "    long long* indices, const cplx<$R>* tw_w, const cplx<$R>* tw_h,\n"
                    "    $R factor, long long k) {\n"
                    "$S  SPECTRAL_DYNAMIC_SHARED(cplx<$R>, shared);\n"
                    "  spectral_fft::fft2_topk_block<$H, $W, $T, $R>(shared, tw_w, tw_h, factor,\n"
                    "      k, XLoad{x}, spectral_sparse::ByMagnitudeStore<cplx<$R>>{values,\n"
                    "      indices, k});\n}\n");
}

/// Images from x, the modes of each one's scaled spectrum at indices into out.
KernelSource gather_unit(const ImageCase& c, const std::string& real = "float") {
  return image_unit(c, "fft2_gather", real, false,
                    std::string(kXLoad) +
                    "extern \"C\" __global__ void $E(const cplx<$R>* x, const long long* indices,\n"
                    "    long long k, cplx<$R>* out, const cplx<$R>* tw_w,\n"
                    "    const cplx<$R>* tw_h, $R factor, unsigned long long* error) {\n"
                    "$S  SPECTRAL_DYNAMIC_SHARED(cplx<$R>, shared);\n"
                    "  spectral_fft::fft2_gather_block<$H, $W, $T, $R>(shared, tw_w, tw_h, factor,\n"
                    "      indices, k, XLoad{x}, spectral_sparse::RowsStore<cplx<$R>>{out, k},\n"
                    "      error);\n}\n");
}

/// Sparse rows [images, k] scattered into images, transformed back into y.
KernelSource scatter_unit(const ImageCase& c, const std::string& real = "float") {
  return image_unit(c, "scatter_ifft2", real, true,
                    "struct VLoad {\n  const cplx<$R>* v;\n  long long k;\n"
                    "  __device__ cplx<$R> operator()(long long row, long long j) const {\n"
                    "    return v[row * k + j];\n  }\n};\n"
                    "struct YStore {\n  cplx<$R>* y;\n"
                    "  __device__ void operator()(int image, int r, int col, cplx<$R> value) const {\n"
                    "    y[((long long)image * $H + r) * $W + col] = value;\n  }\n};\n"
                    "extern \"C\" __global__ void $E(const cplx<$R>* v, const long long* indices,\n"
                    "    long long k, cplx<$R>* y, const cplx<$R>* tw_w, const cplx<$R>* tw_h,\n"
                    "    unsigned long long* error) {\n"
                    "$S  SPECTRAL_DYNAMIC_SHARED(cplx<$R>, shared);\n"
                    "  spectral_fft::scatter_ifft2_block<$H, $W, $T, $R>(shared, indices, k, tw_w,\n"
                    "      tw_h, VLoad{v, k}, YStore{y}, error);\n}\n");
}

std::vector<cfloat> twiddles(int n) { return to_float(planning::fftTwiddles(n, n)); }

/// FFTW's unnormalized DFT of each image (its last two axes; one row when
/// h is 1), in double.
std::vector<cdouble> fftw_images(const std::vector<cdouble>& x, const ImageCase& c, bool forward) {
  std::vector<cdouble> data = x;
  int dims[2] = {c.h, c.w};
  auto* p = reinterpret_cast<fftw_complex*>(data.data());
  fftw_plan plan = fftw_plan_many_dft(2, dims, c.images, p, nullptr, 1, c.h * c.w, p, nullptr, 1,
                                      c.h * c.w, forward ? FFTW_FORWARD : FFTW_BACKWARD,
                                      FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return data;
}

double largest(const std::vector<cdouble>& values) {
  double most = 0;
  for (const cdouble& v : values) most = std::max(most, std::abs(v));
  return most;
}

/// `got` is FFTW's unnormalized inverse of each image's dense sum, in slot
/// order, of values v at `slots` (those outside [0, H * W) skipped).
void expect_inverse_of_scatter(const std::vector<cfloat>& got, const std::vector<cfloat>& v,
                               const std::vector<int64_t>& slots, const ImageCase& c) {
  const int64_t n = int64_t(c.h) * c.w, k = c.k;
  std::vector<cfloat> sums(c.images * n);  // in float, in slot order, as the kernel adds
  for (int image = 0; image < c.images; ++image)
    for (int64_t j = 0; j < k; ++j)
      if (const int64_t i = slots[image * k + j]; i >= 0 && i < n)
        sums[image * n + i] += v[image * k + j];
  std::vector<cdouble> want = fftw_images(std::vector<cdouble>(sums.begin(), sums.end()), c, false);
  const double tolerance = 1e-5 * std::max(1.0, largest(want));
  for (int64_t i = 0; i < c.images * n; ++i)
    ASSERT_LE(std::abs(cdouble(got[i]) - want[i]), tolerance) << "element " << i;
}

class FftImage : public ::testing::TestWithParam<ImageCase> {};

/// The k modes written are the k largest of FFTW's spectrum (up to float
/// rounding: none left out is larger than one taken by more than it), in
/// ascending index order, with FFTW's values.
TEST_P(FftImage, TopkOfTheSpectrumMatchesFftw) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w, k = c.k;
  std::vector<cfloat> x = random_complex(c.images * n, uint64_t(n * 31 + k));
  const float factor = float(1.0 / std::sqrt(double(n)));
  Buffer in(x), values{std::vector<cfloat>(c.images * k)},
      indices{std::vector<int64_t>(c.images * k)}, tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  float f = factor;
  launch(topk_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(block_for(c).threads), 1, 1},
         shared_bytes(c, false),
         {&in.get(), &values.get(), &indices.get(), &tw_w.get(), &tw_h.get(), &f, (void*)&k});
  std::vector<cfloat> got_values = values.read<cfloat>();
  std::vector<int64_t> got_indices = indices.read<int64_t>();
  std::vector<cdouble> want = fftw_images(std::vector<cdouble>(x.begin(), x.end()), c, true);
  for (cdouble& v : want) v *= double(factor);
  const double tolerance = 1e-5 * largest(want);
  for (int image = 0; image < c.images; ++image) {
    const cdouble* spectrum = want.data() + image * n;
    std::vector<bool> taken(n, false);
    double smallest_taken = INFINITY;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t index = got_indices[image * k + j];
      ASSERT_TRUE(index >= 0 && index < n) << "image " << image << " slot " << j << ": " << index;
      if (j > 0) {
        ASSERT_LT(got_indices[image * k + j - 1], index) << "image " << image;
      }
      taken[index] = true;
      smallest_taken = std::min(smallest_taken, std::abs(spectrum[index]));
      EXPECT_LE(std::abs(cdouble(got_values[image * k + j]) - spectrum[index]), tolerance)
          << "image " << image << " mode " << index;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (!taken[i]) {
        EXPECT_LE(std::abs(spectrum[i]), smallest_taken + tolerance)
            << "image " << image << ": mode " << i << " left out";
      }
    }
  }
}

/// The modes at indices in any order, some repeated, some empty (-1, zero),
/// some bad (past the image or below -1: zero, the lowest position
/// reported), as FFTW's scaled spectrum has them.
TEST_P(FftImage, GatherOfTheSpectrumMatchesFftw) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w;
  int64_t k = c.k;
  std::mt19937_64 rng(uint64_t(n * 13 + k));
  std::uniform_int_distribution<int64_t> index(-1, n - 1);
  std::vector<int64_t> slots(c.images * k);
  for (int64_t& s : slots) s = index(rng);
  const int64_t bad = c.images * k - 1;
  slots[bad] = n;
  if (bad > 0) slots[bad - 1] = -5;  // the lowest bad position
  std::vector<cfloat> x = random_complex(c.images * n, uint64_t(n + 7 * k));
  float factor = float(1.0 / std::sqrt(double(n)));
  Buffer in(x), indices(slots), out{std::vector<cfloat>(c.images * k, cfloat(9, 9))},
      error{std::vector<uint64_t>(1, 0)}, tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  launch(gather_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(block_for(c).threads), 1, 1},
         shared_bytes(c, false),
         {&in.get(), &indices.get(), (void*)&k, &out.get(), &tw_w.get(), &tw_h.get(), &factor,
          &error.get()});
  EXPECT_EQ(error.read<uint64_t>()[0], ~uint64_t(bad > 0 ? bad - 1 : bad));
  std::vector<cdouble> want = fftw_images(std::vector<cdouble>(x.begin(), x.end()), c, true);
  const double tolerance = 1e-5 * largest(want) * double(factor);
  std::vector<cfloat> got = out.read<cfloat>();
  for (int64_t p = 0; p < c.images * k; ++p) {
    const int64_t i = slots[p];
    const cdouble expected = i >= 0 && i < n ? want[(p / k) * n + i] * double(factor) : cdouble(0);
    ASSERT_LE(std::abs(cdouble(got[p]) - expected), tolerance) << "slot " << p << ", index " << i;
  }
}

/// Slots in any order, some repeated (added in slot order), some empty
/// (-1): the inverse of the dense sum, as FFTW gives it.
TEST_P(FftImage, ScatterIntoTheInverseMatchesFftw) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w, k = c.k;
  std::mt19937_64 rng(uint64_t(n * 17 + k));
  std::uniform_int_distribution<int64_t> index(-1, n - 1);
  std::vector<int64_t> slots(c.images * k);
  for (int64_t& s : slots) s = index(rng);
  if (k > 1) slots[1] = slots[0];  // a repeated index
  std::vector<cfloat> v = random_complex(c.images * k, uint64_t(k * 5 + n));
  Buffer values(v), indices(slots), out{std::vector<cfloat>(c.images * n)},
      error{std::vector<uint64_t>(1, 0)}, tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  launch(scatter_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(block_for(c).threads), 1, 1},
         shared_bytes(c, true),
         {&values.get(), &indices.get(), (void*)&k, &out.get(), &tw_w.get(), &tw_h.get(),
          &error.get()});
  EXPECT_EQ(error.read<uint64_t>()[0], 0u);
  expect_inverse_of_scatter(out.read<cfloat>(), v, slots, c);
}

/// Slots aimed at one mode are added in slot order: 1 + 1e8 - 1e8 is 0 in
/// float that way (1 in the reverse order). One mode takes three slots of
/// one round of the block's threads, another three slots a round apart.
TEST_P(FftImage, ScatterAddsRepeatedSlotsInSlotOrder) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w, threads = block_for(c).threads;
  int64_t k = 2 * threads + 4;
  std::vector<int64_t> slots(c.images * k, -1);
  std::vector<cfloat> v(c.images * k, cfloat(0, 0));
  const cfloat in_order[3] = {cfloat(1, 0), cfloat(1e8f, 0), cfloat(-1e8f, 0)};
  for (int image = 0; image < c.images; ++image) {
    const int64_t row = image * k, modes[2] = {image % n, (image + 1) % n};
    for (int j = 0; j < 3; ++j) {
      slots[row + j] = modes[0];  // one round
      v[row + j] = in_order[j];
      slots[row + 3 + j * threads] = modes[1];  // three rounds
      v[row + 3 + j * threads] = in_order[j];
    }
  }
  Buffer values(v), indices(slots), out{std::vector<cfloat>(c.images * n)},
      error{std::vector<uint64_t>(1, 0)}, tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  launch(scatter_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(threads), 1, 1},
         shared_bytes(c, true),
         {&values.get(), &indices.get(), (void*)&k, &out.get(), &tw_w.get(), &tw_h.get(),
          &error.get()});
  for (const cfloat& value : out.read<cfloat>()) ASSERT_EQ(value, cfloat(0, 0));
}

/// An index past the image or below -1 is skipped and reported: the error
/// word holds ~(the lowest such position of all the images' slots).
TEST_P(FftImage, ScatterReportsTheFirstBadIndex) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w, k = c.k;
  ASSERT_GE(c.images * k, 2) << "two bad slots";
  std::vector<int64_t> slots(c.images * k, 0);
  const int64_t first = c.images * k - 2;
  slots[first] = n;       // one past the image
  slots[first + 1] = -2;  // below the empty slot
  std::vector<cfloat> v = random_complex(c.images * k, uint64_t(k + n));
  Buffer values(v), indices(slots), out{std::vector<cfloat>(c.images * n)},
      error{std::vector<uint64_t>(1, 0)}, tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  launch(scatter_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(block_for(c).threads), 1, 1},
         shared_bytes(c, true),
         {&values.get(), &indices.get(), (void*)&k, &out.get(), &tw_w.get(), &tw_h.get(),
          &error.get()});
  EXPECT_EQ(error.read<uint64_t>()[0], ~uint64_t(first));
  expect_inverse_of_scatter(out.read<cfloat>(), v, slots, c);  // the good slots still count
}

/// No slots: every image is zeros, whatever an earlier launch left in the
/// blocks' shared memory (the zeros must all be written before any column
/// is transformed).
TEST_P(FftImage, ScatterOfNoSlotsGivesZeros) {
  const ImageCase& c = GetParam();
  const int64_t n = int64_t(c.h) * c.w;
  int64_t k = c.k;
  Buffer values(random_complex(c.images * k, 3)), indices{std::vector<int64_t>(c.images * k, 1)},
      out{std::vector<cfloat>(c.images * n)}, error{std::vector<uint64_t>(1, 0)},
      tw_w(twiddles(c.w)), tw_h(twiddles(c.h));
  std::vector<void*> args = {&values.get(), &indices.get(), (void*)&k,    &out.get(),
                             &tw_w.get(),   &tw_h.get(),    &error.get()};
  const Dim3 grid{uint32_t(c.images), 1, 1}, block{uint32_t(block_for(c).threads), 1, 1};
  launch(scatter_unit(c), grid, block, shared_bytes(c, true), args);  // leaves a spectrum behind
  k = 0;
  launch(scatter_unit(c), grid, block, shared_bytes(c, true), args);
  for (const cfloat& v : out.read<cfloat>()) ASSERT_EQ(v, cfloat(0, 0));
}

std::vector<ImageCase> image_cases() {
  return {
      {16, 32, 3, 24},  // the sparse spectral filter of tests/e2e
      {1, 64, 5, 4},    // along one axis: each row an image
      {12, 10, 2, 7},   // factors 2, 3, 5
      {7, 9, 2, 63},    // odd lengths, every mode taken
      {32, 32, 1, 100},
      {48, 48, 1, 32},  // the largest f32 image fusion gives one block
  };
}

INSTANTIATE_TEST_SUITE_P(Shapes, FftImage, ::testing::ValuesIn(image_cases()), case_name);

// ---- fft_real2d.cuh ----------------------------------------------------------------------

/// Real images of h x w, the first kw columns of their spectra kept, one
/// block of `threads` per image: fewer threads than rows (or kept columns)
/// times a transform's threads, so rows and columns go in several rounds and
/// the barriers between rounds run.
struct RealImageCase {
  int h, w, kw, threads, images;
};

std::string real_case_name(const ::testing::TestParamInfo<RealImageCase>& info) {
  const RealImageCase& c = info.param;
  return std::to_string(c.images) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) +
         "_kw" + std::to_string(c.kw) + "_t" + std::to_string(c.threads);
}

/// KW x H columns, then the rows in flight (Real2D::SHARED_VALUES).
int real_shared_values(const RealImageCase& c) {
  const int row_threads = int(planning::stockhamThreads(c.w / 2));
  return c.kw * c.h + std::min(c.h, c.threads / row_threads) * c.w / 2;
}

/// A real unit's placeholders; $A asserts that the template needs the
/// shared memory the test gives it.
std::map<std::string, std::string> real_unit_values(const RealImageCase& c,
                                                    const std::string& entry,
                                                    const std::string& real) {
  const std::string shape = std::to_string(c.h) + ", " + std::to_string(c.w) + ", " +
                            std::to_string(c.kw) + ", " + std::to_string(c.threads);
  return {{"$H", std::to_string(c.h)},
          {"$W", std::to_string(c.w)},
          {"$K", std::to_string(c.kw)},
          {"$S", shape},
          {"$R", real},
          {"$A", "  static_assert(spectral_fft::real2d_shared_values<" + shape +
                     ">() == " + std::to_string(real_shared_values(c)) + ");\n"},
          {"$E", entry + "_" + (real == "float" ? "f32_" : "f64_") + std::to_string(c.h) + "x" +
                     std::to_string(c.w) + "_kw" + std::to_string(c.kw) + "_t" +
                     std::to_string(c.threads)}};
}

const char* const kRealPrelude =
    "#include \"common.cuh\"\n"
    "#include \"fft_real2d.cuh\"\n"
    "SPECTRAL_HOST_PHASED;\n"  // as codegen's: the host runs a block per call
    "using spectral_fft::cplx;\n";

/// rfft2_block of the images in x; its store writes the kept columns of
/// each spectrum, [images, h, kw], from shared memory.
KernelSource rfft2_unit(const RealImageCase& c, const std::string& real = "float") {
  const std::map<std::string, std::string> values = real_unit_values(c, "rfft2", real);
  return {fill(std::string(kRealPrelude) +
                   "struct XLoad {\n  const $R* x;\n"
                   "  __device__ $R operator()(int image, int r, int col) const {\n"
                   "    return x[((long long)image * $H + r) * $W + col];\n  }\n};\n"
                   "struct SpectrumStore {\n  static constexpr int ELEMENTS = $H * $K;\n"
                   "  const cplx<$R>* shared;\n  cplx<$R>* out;\n"
                   "  __device__ void operator()(int image, int e) const {\n"
                   "    const int r = e / $K, k = e - r * $K;\n"
                   "    out[(long long)image * ELEMENTS + e] = shared[k * $H + r];\n  }\n};\n"
                   "extern \"C\" __global__ void $E(const $R* x, cplx<$R>* out,\n"
                   "    const cplx<$R>* half_twiddles, const cplx<$R>* twiddles_n,\n"
                   "    const cplx<$R>* twiddles_h) {\n"
                   "$A  SPECTRAL_DYNAMIC_SHARED(cplx<$R>, shared);\n"
                   "  spectral_fft::rfft2_block<$S, $R>(shared, half_twiddles, twiddles_n,\n"
                   "      twiddles_h, XLoad{x}, SpectrumStore{shared, out});\n}\n",
               values),
          fill("$E", values),
          {}};
}

/// irfft2_block of spectra [images, h, kw] (the columns past kw zero) into
/// real images.
KernelSource irfft2_unit(const RealImageCase& c, const std::string& real = "float") {
  const std::map<std::string, std::string> values = real_unit_values(c, "irfft2", real);
  return {fill(std::string(kRealPrelude) +
                   "struct BinLoad {\n  const cplx<$R>* bins;\n"
                   "  __device__ cplx<$R> operator()(int image, int r, int k) const {\n"
                   "    return bins[((long long)image * $H + r) * $K + k];\n  }\n};\n"
                   "struct YStore {\n  $R* y;\n"
                   "  __device__ void operator()(int image, int r, int col, $R value) const {\n"
                   "    y[((long long)image * $H + r) * $W + col] = value;\n  }\n};\n"
                   "extern \"C\" __global__ void $E(const cplx<$R>* bins, $R* y,\n"
                   "    const cplx<$R>* half_twiddles, const cplx<$R>* twiddles_n,\n"
                   "    const cplx<$R>* twiddles_h) {\n"
                   "$A  SPECTRAL_DYNAMIC_SHARED(cplx<$R>, shared);\n"
                   "  spectral_fft::irfft2_block<$S, $R>(shared, half_twiddles, twiddles_n,\n"
                   "      twiddles_h, BinLoad{bins}, YStore{y});\n}\n",
               values),
          fill("$E", values),
          {}};
}

size_t real_shared_bytes(const RealImageCase& c) {
  return size_t(real_shared_values(c)) * sizeof(cfloat);
}

/// FFTW's r2c of each image, [images, h, w/2 + 1], in double.
std::vector<cdouble> fftw_r2c_images(const std::vector<double>& x, const RealImageCase& c) {
  const int bins = c.w / 2 + 1;
  std::vector<double> in = x;
  std::vector<cdouble> out(size_t(c.images) * c.h * bins);
  int dims[2] = {c.h, c.w};
  fftw_plan plan = fftw_plan_many_dft_r2c(2, dims, c.images, in.data(), nullptr, 1, c.h * c.w,
                                          reinterpret_cast<fftw_complex*>(out.data()), nullptr, 1,
                                          c.h * bins, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

/// FFTW's unnormalized c2r of each spectrum [images, h, w/2 + 1], in double.
std::vector<double> fftw_c2r_images(const std::vector<cdouble>& spectrum, const RealImageCase& c) {
  const int bins = c.w / 2 + 1;
  std::vector<cdouble> in = spectrum;  // c2r overwrites its input
  std::vector<double> out(size_t(c.images) * c.h * c.w);
  int dims[2] = {c.h, c.w};
  fftw_plan plan = fftw_plan_many_dft_c2r(2, dims, c.images,
                                          reinterpret_cast<fftw_complex*>(in.data()), nullptr, 1,
                                          c.h * bins, out.data(), nullptr, 1, c.h * c.w,
                                          FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

struct RealTables {
  Buffer half, n, h;
  explicit RealTables(const RealImageCase& c)
      : half(twiddles(c.w / 2)),
        n(to_float(planning::fftTwiddles(c.w, c.w / 2 + 1))),
        h(twiddles(c.h)) {}
};

class FftRealImage : public ::testing::TestWithParam<RealImageCase> {};

/// The kept columns of each image's spectrum, as FFTW's r2c has them.
TEST_P(FftRealImage, ForwardKeepsFftwsFirstColumns) {
  const RealImageCase& c = GetParam();
  const int bins = c.w / 2 + 1;
  std::vector<float> x(size_t(c.images) * c.h * c.w);
  std::mt19937_64 rng(uint64_t(c.h * 131 + c.w));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : x) v = uniform(rng);
  RealTables tables(c);
  Buffer in(x), out{std::vector<cfloat>(size_t(c.images) * c.h * c.kw)};
  launch(rfft2_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(c.threads), 1, 1},
         real_shared_bytes(c),
         {&in.get(), &out.get(), &tables.half.get(), &tables.n.get(), &tables.h.get()});
  const std::vector<cdouble> want = fftw_r2c_images(std::vector<double>(x.begin(), x.end()), c);
  const std::vector<cfloat> got = out.read<cfloat>();
  const double tolerance = 1e-5 * largest(want);
  for (int image = 0; image < c.images; ++image)
    for (int r = 0; r < c.h; ++r)
      for (int k = 0; k < c.kw; ++k) {
        const size_t at = (size_t(image) * c.h + r) * c.kw + k;
        ASSERT_LE(std::abs(cdouble(got[at]) - want[(size_t(image) * c.h + r) * bins + k]),
                  tolerance)
            << "image " << image << " bin (" << r << ", " << k << ")";
      }
}

/// The real images of spectra whose columns past kw are zero, as FFTW's c2r
/// gives them.
TEST_P(FftRealImage, InverseOfKeptColumnsMatchesFftw) {
  const RealImageCase& c = GetParam();
  const int bins = c.w / 2 + 1;
  // The spectra of real images, so that each is Hermitian as a c2r expects.
  std::vector<double> x(size_t(c.images) * c.h * c.w);
  std::mt19937_64 rng(uint64_t(c.h * 17 + c.w * 3 + c.kw));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (double& v : x) v = uniform(rng);
  std::vector<cdouble> spectrum = fftw_r2c_images(x, c);
  std::vector<cdouble> kept(size_t(c.images) * c.h * c.kw);
  for (size_t row = 0; row < size_t(c.images) * c.h; ++row)
    for (int k = 0; k < bins; ++k) {
      cdouble& bin = spectrum[row * bins + k];
      bin = cdouble(cfloat(bin));  // what the kernel is given
      if (k < c.kw)
        kept[row * c.kw + k] = bin;
      else
        bin = 0;
    }
  RealTables tables(c);
  Buffer in(to_float(kept)), out{std::vector<float>(x.size())};
  launch(irfft2_unit(c), {uint32_t(c.images), 1, 1}, {uint32_t(c.threads), 1, 1},
         real_shared_bytes(c),
         {&in.get(), &out.get(), &tables.half.get(), &tables.n.get(), &tables.h.get()});
  const std::vector<double> want = fftw_c2r_images(spectrum, c);
  const std::vector<float> got = out.read<float>();
  double most = 0;
  for (double v : want) most = std::max(most, std::abs(v));
  const double tolerance = 1e-5 * most;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::abs(double(got[i]) - want[i]), tolerance) << "element " << i;
}

std::vector<RealImageCase> real_image_cases() {
  return {
      {16, 64, 33, 32, 3},  // every column kept, rows in two rounds, columns in many
      {16, 64, 5, 32, 2},   // an FNO layer's low modes
      {28, 28, 15, 32, 2},  // Fashion-MNIST: rows of 14 (2 x 7)
      {12, 20, 4, 32, 3},   // factors 2, 3, 5
  };
}

INSTANTIATE_TEST_SUITE_P(Shapes, FftRealImage, ::testing::ValuesIn(real_image_cases()),
                         real_case_name);

class FftImageNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(FftImageNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const ImageCase& c : image_cases()) {
    for (const char* real : {"float", "double"}) {
      // The images fusion gives one block (44 KiB: OpKinds.h).
      if (shared_bytes(c, true, std::string(real) == "float" ? 8 : 16) > 44 * 1024) continue;
      expect_clean_cubin(topk_unit(c, real), options, block_for(c).threads);
      expect_clean_cubin(gather_unit(c, real), options, block_for(c).threads);
      expect_clean_cubin(scatter_unit(c, real), options, block_for(c).threads);
    }
  }
  for (const RealImageCase& c : real_image_cases())
    for (const char* real : {"float", "double"}) {
      expect_clean_cubin(rfft2_unit(c, real), options, c.threads);
      expect_clean_cubin(irfft2_unit(c, real), options, c.threads);
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, FftImageNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
