//===- FftPlanner.cpp - FFT, real FFT and DCT axes -> kernels and launches -===//
#include "compiler/Planning/FftPlanner.h"

#include "compiler/Planning/FftTables.h"
#include "compiler/Planning/FftUnits.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

namespace spectral::planning {

const char *fftKindName(FftKind kind) {
  switch (kind) {
  case FftKind::kForward:
    return "fft";
  case FftKind::kInverse:
    return "ifft";
  case FftKind::kRealForward:
    return "rfft";
  case FftKind::kRealInverse:
    return "irfft";
  case FftKind::kDct2:
    return "dct2";
  case FftKind::kDct3:
    return "dct3";
  }
  return "?";
}

namespace {

using units::Functor;
using units::Param;
using units::Real;
using units::Unit;

/// How a complex transform of one length runs.
enum class Path { kStockham, kBluestein, kFourStep, kBluesteinMultiPass };

bool stockhamFits(int64_t n) { return n <= kMaxInBlockLength && hasStockhamPlan(n); }
bool bluesteinFits(int64_t n) { return bluesteinLength(n) <= kMaxInBlockBluestein; }
bool fitsOneBlock(int64_t n) { return stockhamFits(n) || bluesteinFits(n); }

/// n = n1 * n2 with both factors in-block Stockham lengths, n1 <= n2 and as
/// close to sqrt(n) as possible (balanced passes); 0 when there is none.
int64_t fourStepSplit(int64_t n) {
  if (n > kMaxFourStepLength)
    return 0;
  for (int64_t n1 = int64_t(std::sqrt(double(n))); n1 >= 2; --n1)
    if (n % n1 == 0 && hasStockhamPlan(n1) && stockhamFits(n / n1))
      return n1;
  return 0;
}

/// The path of a complex transform of length n, if it has one.
bool complexPath(int64_t n, Path &path) {
  if (stockhamFits(n))
    path = Path::kStockham;
  else if (bluesteinFits(n))
    path = Path::kBluestein;
  else if (fourStepSplit(n))
    path = Path::kFourStep;
  else if (fourStepSplit(bluesteinLength(n)))
    path = Path::kBluesteinMultiPass;
  else
    return false;
  return true;
}

/// The most transforms one launch of `path` for length n runs per line.
int64_t batchesPerLine(int64_t n, Path path) {
  int64_t m = path == Path::kBluesteinMultiPass ? bluesteinLength(n) : n;
  if (path != Path::kFourStep && path != Path::kBluesteinMultiPass)
    return 1;
  int64_t n1 = fourStepSplit(m);
  return std::max(n1, m / n1);
}

/// What runs: a complex transform of length `core` (the axis' own, or half
/// of an even real length) by `path`, alone or inside real packing.
struct Choice {
  enum class Shape { kComplex, kPackedInBlock, kPackedMultiPass } shape = Shape::kComplex;
  int64_t core = 1;
  Path path = Path::kStockham;
};

/// The first Load and the last Store of a complex transform, and the prefix
/// of its entry names, which with the length and precision determines both
/// functors' text (so that entry names stay unique).
struct Ends {
  Functor load, store;
  std::string op;
};

std::string str(int64_t v) { return std::to_string(v); }

/// The op in a Bluestein unit's entry name: its text does not depend on the
/// direction (the chirp and filter tables carry it), so an inverse C2C shares
/// the forward one's units.
std::string bluesteinOp(const std::string &op) { return op == "ifft" ? "fft" : op; }

/// Writes the kernels and launches of one planned axis.
class Writer {
public:
  Writer(codegen::ProgramBuilder &builder, const FftAxis &axis, const AxisEnds &ends)
      : builder_(builder), axis_(axis), ends_(ends), real_{axis.doublePrecision},
        lines_(axis.outer * axis.inner) {}

  void write(const Choice &choice);
  /// One kernel per line: transform, `filter` on every bin, inverse.
  void roundTrip(const Functor &filter);

private:
  void complex(int64_t n, bool forward, Path path, const Ends &ends);
  void stockham(int64_t n, bool forward, const Ends &ends);
  void bluestein(int64_t n, bool forward, const Ends &ends);
  void fourStep(int64_t n, bool forward, const Ends &ends, const std::string &cols,
                const std::string &rows, int scratchBuffer);
  /// Chains the last two launches (Step::chain_parts), transforms of
  /// `firstBatches` and `secondBatches` batches per line, a part per outer
  /// index, where each part's batches fill whole blocks; `local` is the
  /// intermediate only they use (Step::chain_local).
  void chainByOuterLines(int64_t firstBatches, int64_t secondBatches, int local);
  void bluesteinMultiPass(int64_t n, bool forward, const Ends &ends);
  void packedInBlock(bool r2c);
  void packedMultiPass(bool r2c, Path path);

  /// The ends of a complex transform of the axis' own length: the axis'
  /// ends, wrapped in the real or DCT adapters.
  Ends axisEnds();

  int table(const std::string &name, const std::vector<Complex> &values) {
    return builder_.addComplexTable(name + "_" + real_.tag(), values, real_.wide);
  }
  int twiddles(int64_t n) { return table("fft_twiddles_" + str(n), fftTwiddles(n, n)); }
  int scratch(const std::string &name, int64_t length) {
    return builder_.addBuffer(name, real_.wide ? DType::kComplex128 : DType::kComplex64,
                              {axis_.outer, length, axis_.inner}, BufferRole::kTemporary);
  }
  std::string name(const std::string &op, const std::string &path, int64_t n) const {
    return op + "_" + path + "_" + real_.tag() + "_n" + str(n);
  }
  Param batches(int64_t count) const { return units::intParam("batches", count); }
  Param inner() const { return units::intParam("inner", axis_.inner); }

  /// Launches `unit` with `threads` per transform and as many transforms of
  /// `length` (shared-memory entries) per block as 256 threads and 32 KiB allow.
  void launchRows(const Unit &unit, int64_t threads, int64_t length, int64_t count);
  /// Launches a pointwise step over `count` elements: 256 threads, a few
  /// elements each, at most 4096 blocks (grid-stride).
  void emitPointwise(const Unit &unit, int64_t count);
  void emit(const Unit &unit, Dim3 grid, Dim3 block, uint32_t sharedBytes);

  codegen::ProgramBuilder &builder_;
  const FftAxis &axis_;
  const AxisEnds &ends_;
  Real real_;
  int64_t lines_;
};

Ends Writer::axisEnds() {
  Real r = real_;
  int64_t n = axis_.n;
  const Functor &load = ends_.load, &store = ends_.store;
  switch (axis_.kind) {
  case FftKind::kForward:
  case FftKind::kInverse:
    return {load, store, fftKindName(axis_.kind)};
  case FftKind::kRealForward:
    return {units::wrap(r, "RealAsComplex", load),
            units::wrap(r, "FirstBins", store, ", " + str(n / 2 + 1)), "rfft"};
  case FftKind::kRealInverse:
    return {units::wrap(r, "HermitianExtension", load, ", " + str(n / 2 + 1) + ", " + str(n)),
            units::wrap(r, "RealPart", store), "irfft"};
  case FftKind::kDct2:
  case FftKind::kDct3: {
    Param quarter =
        units::table(r, "quarter", table("dct_quarter_" + str(n), fftTwiddles(4 * n, n)));
    if (axis_.kind == FftKind::kDct2)
      return {units::wrap(r, "Dct2Prologue", load, ", " + str(n)),
              units::wrap(r, "Dct2Epilogue", store, ", quarter", {quarter}), "dct2"};
    return {units::wrap(r, "Dct3Prologue", load, ", quarter, " + str(n), {quarter}),
            units::wrap(r, "Dct3Epilogue", store, ", " + str(n)), "dct3"};
  }
  }
  return {};
}

void Writer::write(const Choice &choice) {
  bool forward = axis_.kind == FftKind::kForward || axis_.kind == FftKind::kRealForward ||
                 axis_.kind == FftKind::kDct2;
  switch (choice.shape) {
  case Choice::Shape::kComplex:
    complex(choice.core, forward, choice.path, axisEnds());
    break;
  case Choice::Shape::kPackedInBlock:
    packedInBlock(forward);
    break;
  case Choice::Shape::kPackedMultiPass:
    packedMultiPass(forward, choice.path);
    break;
  }
}

void Writer::complex(int64_t n, bool forward, Path path, const Ends &ends) {
  switch (path) {
  case Path::kStockham:
    return stockham(n, forward, ends);
  case Path::kBluestein:
    return bluestein(n, forward, ends);
  case Path::kFourStep:
    return fourStep(n, forward, ends, name(ends.op, "fourstep", n) + "_cols",
                    name(ends.op, "fourstep", n) + "_rows", -1);
  case Path::kBluesteinMultiPass:
    return bluesteinMultiPass(n, forward, ends);
  }
}

void Writer::stockham(int64_t n, bool forward, const Ends &ends) {
  int64_t threads = stockhamThreads(n);
  Unit unit;
  unit.entry = units::entryName(name(ends.op, "stockham", n), ends.load, ends.store);
  unit.add(ends.load);
  unit.add(ends.store);
  unit.params.push_back(units::table(real_, "twiddles", twiddles(n)));
  unit.params.push_back(batches(lines_));
  unit.params.push_back(inner());
  unit.phased = unit.phasedRuns = true;
  unit.body = "  fft_batched<" + str(n) + ", " + str(threads) + ", " +
              (forward ? "true" : "false") + ">(shared, twiddles, batches,\n      " +
              ends.load.expr + ",\n      " + ends.store.expr + ");\n";
  launchRows(unit, threads, n, lines_);
}

void Writer::bluestein(int64_t n, bool forward, const Ends &ends) {
  int64_t m = bluesteinLength(n), threads = bluesteinThreads(m);
  BluesteinTables tables = bluesteinTables(n, m, forward);
  std::string direction = forward ? "_fwd" : "_inv";
  Unit unit;
  unit.entry = units::entryName(name(bluesteinOp(ends.op), "bluestein", n), ends.load, ends.store);
  unit.add(ends.load);
  unit.add(ends.store);
  unit.params.push_back(units::table(real_, "twiddles", twiddles(m)));
  unit.params.push_back(
      units::table(real_, "chirp", table("fft_chirp_" + str(n) + direction, tables.chirp)));
  unit.params.push_back(
      units::table(real_, "filter", table("fft_filter_" + str(n) + direction, tables.filter)));
  unit.params.push_back(batches(lines_));
  unit.params.push_back(inner());
  unit.phased = unit.phasedRuns = true;
  unit.body = "  fft_bluestein_batched<" + str(n) + ", " + str(m) + ", " + str(threads) +
              ">(shared, twiddles, chirp, filter, batches,\n      " + ends.load.expr + ",\n      " +
              ends.store.expr + ");\n";
  emit(unit, {uint32_t(lines_), 1, 1}, {uint32_t(threads), 1, 1},
       uint32_t(m * real_.complexBytes()));
}

void Writer::fourStep(int64_t n, bool forward, const Ends &ends, const std::string &cols,
                      const std::string &rows, int scratchId) {
  int64_t n1 = fourStepSplit(n), n2 = n / n1;
  int scratchBuffer = scratchId >= 0 ? scratchId : scratch("fourstep_" + str(n), n);
  int shift = 0;
  while ((int64_t(1) << (2 * shift)) < n)
    ++shift;
  std::vector<Complex> roots = fftTwiddles(n, n);
  std::vector<Complex> hi((n >> shift) + 1), lo(int64_t(1) << shift);
  for (size_t j = 0; j < hi.size(); ++j)
    hi[j] = roots[(int64_t(j) << shift) % n];
  for (size_t j = 0; j < lo.size(); ++j)
    lo[j] = roots[j % n];
  std::string fwd = forward ? "true" : "false";

  // Pass 1: length-n1 transforms down the columns, times w_n^(k1 j2).
  Functor columns = units::wrap("FourStepColumnLoad", ends.load, ", " + str(n2) + ", inner");
  Unit first;
  first.entry = units::entryName(cols, ends.load, Functor{});
  first.add(columns);
  first.params.push_back({real_.complex() + "* scratch", StepArg::of_buffer(scratchBuffer)});
  first.params.push_back(units::table(real_, "twiddles", twiddles(n1)));
  first.params.push_back(units::table(real_, "hi", table("fft_fourstep_hi_" + str(n), hi)));
  first.params.push_back(units::table(real_, "lo", table("fft_fourstep_lo_" + str(n), lo)));
  first.params.push_back(batches(lines_ * n2));
  first.params.push_back(inner());
  first.phased = first.phasedRuns = true;
  first.body = "  fft_batched<" + str(n1) + ", " + str(stockhamThreads(n1)) + ", " + fwd +
               ">(shared, twiddles, batches,\n      " + columns.expr +
               ",\n      FourStepTwiddleStore<" + real_.cpp() + ", " + fwd +
               ">{scratch, AxisLayout{" + str(n1) + ", " + str(n2) + " * inner}, inner, hi, lo, " +
               str(shift) + "});\n";
  launchRows(first, stockhamThreads(n1), n1, lines_ * n2);

  // Pass 2: length-n2 transforms along the rows, bins written transposed.
  Functor transposed = units::wrap("FourStepRowStore", ends.store, ", " + str(n1) + ", inner");
  Unit second;
  second.entry = units::entryName(rows, Functor{}, ends.store);
  second.params.push_back(
      {"const " + real_.complex() + "* scratch", StepArg::of_buffer(scratchBuffer)});
  second.add(transposed);
  second.params.push_back(units::table(real_, "twiddles", twiddles(n2)));
  second.params.push_back(batches(lines_ * n1));
  second.params.push_back(inner());
  second.phased = second.phasedRuns = true;
  second.body = "  fft_batched<" + str(n2) + ", " + str(stockhamThreads(n2)) + ", " + fwd +
                ">(shared, twiddles, batches,\n      ComplexLoad<" + real_.cpp() +
                ">{scratch, AxisLayout{" + str(n2) + ", inner}},\n      " + transposed.expr +
                ");\n";
  launchRows(second, stockhamThreads(n2), n2, lines_ * n1);
  chainByOuterLines(n2, n1, scratchBuffer);
}

void Writer::chainByOuterLines(int64_t firstBatches, int64_t secondBatches, int local) {
  std::vector<Step> &steps = builder_.program().steps;
  Step &first = steps[steps.size() - 2], &second = steps.back();
  // Part p of both launches is outer line p: its batches must fill whole
  // blocks (batch b runs in block b / rows).
  auto whole = [&](const Step &step, int64_t batches) {
    return (batches * axis_.inner) % step.block.y == 0;
  };
  if (axis_.outer > 1 && axis_.outer <= std::numeric_limits<uint32_t>::max() &&
      whole(first, firstBatches) && whole(second, secondBatches)) {
    first.chain_parts = uint32_t(axis_.outer);
    first.chain_local = local;
  }
}

void Writer::bluesteinMultiPass(int64_t n, bool forward, const Ends &ends) {
  int64_t m = bluesteinLength(n);
  BluesteinTables tables = bluesteinTables(n, m, forward);
  std::string direction = forward ? "_fwd" : "_inv";
  Param chirp =
      units::table(real_, "chirp", table("fft_chirp_" + str(n) + direction, tables.chirp));
  Param filter =
      units::table(real_, "filter", table("fft_filter_" + str(n) + direction, tables.filter));
  int work = scratch("bluestein_" + str(m), m);
  int spectrum = scratch("bluestein_spectrum_" + str(m), m);

  // Forward FFT of the chirped, zero-padded line; the filter in its store.
  Ends convolve{units::wrap(real_, "ChirpPadLoad", ends.load, ", chirp, " + str(n), {chirp}),
                units::wrap(real_, "TableStore",
                            units::complexStore(real_, "out", spectrum, m, 1, false), ", filter",
                            {filter}),
                ""};
  fourStep(m, true, convolve, name(bluesteinOp(ends.op), "bluestein", n) + "_cols",
           name("fft", "fourstep", m) + "_rows_filter", work);
  // Inverse FFT (the filter carries 1/m), the chirp again in its store.
  Ends back{units::complexLoad(real_, "in", spectrum, m),
            units::wrap(real_, "ChirpStore", ends.store, ", chirp, " + str(n), {chirp}), ""};
  fourStep(m, false, back, name("ifft", "fourstep", m) + "_cols",
           name(bluesteinOp(ends.op), "bluestein", n) + "_rows", work);
}

void Writer::packedInBlock(bool r2c) {
  int64_t n = axis_.n, h = n / 2, threads = stockhamThreads(h);
  const Functor &load = ends_.load, &store = ends_.store;
  Unit unit;
  unit.entry = units::entryName(name(r2c ? "rfft" : "irfft", "packed", n), load, store);
  unit.add(load);
  unit.add(store);
  unit.params.push_back(units::table(real_, "twiddles", twiddles(h)));
  unit.params.push_back(
      units::table(real_, "twiddles_n", table("fft_twiddles_n_" + str(n), fftTwiddles(n, h + 1))));
  unit.params.push_back(batches(lines_));
  unit.params.push_back(inner());
  unit.phased = unit.phasedRuns = true;
  unit.body = std::string("  ") + (r2c ? "fft_r2c_batched<" : "fft_c2r_batched<") + str(n) + ", " +
              str(threads) + ">(shared, twiddles, twiddles_n, batches,\n      " + load.expr +
              ",\n      " + store.expr + ");\n";
  launchRows(unit, threads, h, lines_);
}

void Writer::roundTrip(const Functor &filter) {
  const bool real = axis_.kind == FftKind::kRealForward;
  const int64_t n = axis_.n, length = real ? n / 2 : n, threads = stockhamThreads(length);
  const Functor &load = ends_.load, &store = ends_.store;
  Unit unit;
  unit.entry = units::entryName(name(real ? "rfft" : "fft", "roundtrip", n), load, store) +
               (filter.tag.empty() ? "" : "_F" + filter.tag);
  unit.add(load);
  unit.add(filter);
  unit.add(store);
  unit.maxThreads = kMaxRoundTripThreads;  // launchRows' widest block at these lengths
  unit.phased = unit.phasedRuns = true;
  unit.params.push_back(units::table(real_, "twiddles", twiddles(length)));
  if (real)
    unit.params.push_back(units::table(
        real_, "twiddles_n", table("fft_twiddles_n_" + str(n), fftTwiddles(n, length + 1))));
  unit.params.push_back(batches(lines_));
  unit.params.push_back(inner());
  unit.body = std::string("  ") +
              (real ? "fft_real_roundtrip_batched<" : "fft_roundtrip_batched<") + str(n) + ", " +
              str(threads) + ">(shared, twiddles, " + (real ? "twiddles_n, " : "") +
              "batches,\n      " + load.expr + ",\n      " + filter.expr + ",\n      " +
              store.expr + ");\n";
  launchRows(unit, threads, length, lines_);
}

void Writer::packedMultiPass(bool r2c, Path path) {
  int64_t n = axis_.n, h = n / 2;
  Real r = real_;
  int half = scratch(std::string(r2c ? "rfft" : "irfft") + "_half_" + str(h), h);
  Param twiddlesN =
      units::table(r, "twiddles_n", table("fft_twiddles_n_" + str(n), fftTwiddles(n, h + 1)));
  int64_t count = lines_ * (r2c ? h + 1 : h);
  Unit step; // the (un)packing, over [outer, h+1 or h, inner]
  step.usesShared = false;
  step.phased = step.phasedRuns = true;  // axis_map takes runs of blocks
  if (r2c) {
    // Pairs x_2j + i x_2j+1 through the half-length plan into `half`...
    complex(h, true, path,
            {units::wrap(r, "PairLoad", ends_.load),
             units::complexStore(r, "out", half, h, 1, false), "rfft_half"});
    // ...then the spectrum of the reals from bins k and h - k.
    step.entry = units::entryName(name("rfft", "unpack", n), Functor{}, ends_.store);
    step.params.push_back({"const " + r.complex() + "* z", StepArg::of_buffer(half)});
    step.add(ends_.store);
    step.params.push_back(twiddlesN);
    step.params.push_back(units::longParam("count", count));
    step.params.push_back(inner());
    step.body = "  axis_map(count, " + str(h + 1) + ", inner, RealSpectrumFromHalf<" + r.cpp() +
                ">{z, AxisLayout{" + str(h) + ", inner}, twiddles_n},\n      " + ends_.store.expr +
                ");\n";
    emitPointwise(step, count);
    return;
  }
  // The packed half spectrum into `half`, then the half-length inverse plan
  // whose values are the pairs x_2j + i x_2j+1.
  Functor packed = units::wrap(r, "HalfFromRealSpectrum", ends_.load, ", twiddles_n, " + str(h));
  step.entry = units::entryName(name("irfft", "pack", n), ends_.load, Functor{});
  step.add(packed);
  step.params.push_back({r.complex() + "* z", StepArg::of_buffer(half)});
  step.params.push_back(twiddlesN);
  step.params.push_back(units::longParam("count", count));
  step.params.push_back(inner());
  step.body = "  axis_map(count, " + str(h) + ", inner,\n      " + packed.expr +
              ",\n      ComplexStore<" + r.cpp() + ">{z, AxisLayout{" + str(h) + ", inner}, " +
              r.cpp() + "(1)});\n";
  emitPointwise(step, count);
  complex(h, false, path,
          {units::complexLoad(r, "in", half, h), units::wrap(r, "PairStore", ends_.store),
           "irfft_half"});
}

void Writer::emitPointwise(const Unit &unit, int64_t count) {
  uint32_t blocks = uint32_t(std::clamp<int64_t>((count + 1023) / 1024, 1, 4096));
  emit(unit, {blocks, 1, 1}, {256, 1, 1}, 0);
}

void Writer::launchRows(const Unit &unit, int64_t threads, int64_t length, int64_t count) {
  int64_t rows = std::max<int64_t>(1, 256 / threads);
  rows = std::max<int64_t>(1, std::min(rows, 32768 / (real_.complexBytes() * length)));
  emit(unit, {uint32_t((count + rows - 1) / rows), 1, 1}, {uint32_t(threads), uint32_t(rows), 1},
       uint32_t(rows * length * real_.complexBytes()));
}

void Writer::emit(const Unit &unit, Dim3 grid, Dim3 block, uint32_t sharedBytes) {
  int64_t read = 0, written = 0;
  for (const Param &p : unit.params)
    if (p.arg.kind == StepArg::Kind::kBuffer)
      (p.decl.rfind("const ", 0) == 0 ? read : written) +=
          builder_.program().buffers[p.arg.buffer].bytes();
  int kernel = builder_.addKernel(unit.source(real_), axis_.op, read, written);
  builder_.launch(kernel, grid, block, sharedBytes, unit.args(), axis_.op);
}

} // namespace

namespace {

Status failure(const FftAxis &axis, const std::string &message) {
  std::string where = axis.op.empty() ? "" : axis.op + ": ";
  return Status::error(where + fftKindName(axis.kind) + " of length " + std::to_string(axis.n) +
                       ": " + message);
}

/// Checks that buffer `id` exists, has `dtype` and `elements` elements.
Status checkBuffer(const Program &program, const FftAxis &axis, int id, const char *role,
                   DType dtype, int64_t elements) {
  if (id < 0 || size_t(id) >= program.buffers.size())
    return failure(axis, std::string("no ") + role + " buffer " + std::to_string(id));
  const BufferDesc &buffer = program.buffers[id];
  if (buffer.dtype != dtype || buffer.elements() != elements)
    return failure(axis, std::string("the ") + role + " '" + buffer.name + "' holds " +
                             std::to_string(buffer.elements()) + " x " + dtype_name(buffer.dtype) +
                             ", expected " + std::to_string(elements) + " x " + dtype_name(dtype));
  if (buffer.role == BufferRole::kConstant && std::string(role) == "output")
    return failure(axis, "the output '" + buffer.name + "' is a constant");
  return Status::ok();
}

/// The choice for `axis`, or why there is none.
StatusOr<Choice> choose(const FftAxis &axis) {
  Choice choice;
  int64_t n = axis.n, h = n / 2;
  bool real = axis.kind == FftKind::kRealForward || axis.kind == FftKind::kRealInverse;
  if (real && n % 2 == 0 && stockhamFits(h)) {
    choice.shape = Choice::Shape::kPackedInBlock;
    choice.core = h;
    return choice;
  }
  if (real && n % 2 == 0 && !fitsOneBlock(n)) {
    choice.shape = Choice::Shape::kPackedMultiPass;
    choice.core = h;
  } else {
    choice.core = n;
  }
  if (!complexPath(choice.core, choice.path))
    return failure(axis, "no plan for a complex FFT of length " + std::to_string(choice.core) +
                             " (four-step reaches " + std::to_string(kMaxFourStepLength) +
                             " points with factors of 2, 3, 5, 7; Bluestein's convolution of " +
                             std::to_string(bluesteinLength(choice.core)) +
                             " points is beyond it)");
  return choice;
}

} // namespace

AxisEnds plainEnds(const FftAxis &axis) {
  Real r{axis.doublePrecision};
  int64_t n = axis.n, bins = n / 2 + 1;
  int in = axis.input, out = axis.output;
  double f = axis.factor;
  switch (axis.kind) {
  case FftKind::kForward:
  case FftKind::kInverse:
    return {units::complexLoad(r, "in", in, n), units::complexStore(r, "out", out, n, f, true)};
  case FftKind::kRealForward:
    return {units::realLoad(r, "in", in, n), units::complexStore(r, "out", out, bins, f, true)};
  case FftKind::kRealInverse:
    return {units::complexLoad(r, "in", in, bins), units::realStore(r, "out", out, n, f)};
  case FftKind::kDct2:
  case FftKind::kDct3:
    return {units::realLoad(r, "in", in, n), units::realStore(r, "out", out, n, f)};
  }
  return {};
}

bool roundTripFits(FftKind kind, int64_t n) {
  // Two transforms' code in one entry takes more registers than one: at 512
  // threads per transform (lengths beyond 2048) ptxas spills on sm_80 to keep
  // two blocks per SM, so round trips stop at 256 threads.
  auto fits = [](int64_t length) {
    return stockhamFits(length) && stockhamThreads(length) <= kMaxRoundTripThreads;
  };
  if (kind == FftKind::kForward) return fits(n);
  return kind == FftKind::kRealForward && n % 2 == 0 && fits(n / 2);
}

Status planFftRoundTrip(codegen::ProgramBuilder &builder, const FftAxis &axis,
                        const AxisEnds &ends, const units::Functor &filter) {
  if (!roundTripFits(axis.kind, axis.n))
    return failure(axis, "a transform, filter and inverse in one kernel need a complex length "
                         "of one block, or an even real length whose half is one");
  if (axis.outer < 0 || axis.inner < 1 || axis.outer > INT_MAX / axis.inner)
    return failure(axis, "outer " + std::to_string(axis.outer) + " x inner " +
                             std::to_string(axis.inner) + " lines are not in [0, 2^31)");
  if (axis.outer * axis.inner == 0) return Status::ok();
  Writer(builder, axis, ends).roundTrip(filter);
  return Status::ok();
}

Status planFftAxis(codegen::ProgramBuilder &builder, const FftAxis &axis) {
  if (axis.input < 0 || axis.output < 0)
    return failure(axis, "the plain functors need an input and an output buffer");
  return planFftAxisWith(builder, axis, plainEnds(axis));
}

Status planFftAxisWith(codegen::ProgramBuilder &builder, const FftAxis &axis,
                       const AxisEnds &ends) {
  if (axis.n < 1 || axis.n > INT_MAX)
    return failure(axis, "lengths must lie in [1, 2^31)");
  if (axis.outer < 0 || axis.inner < 1 || axis.outer > INT_MAX / axis.inner)
    return failure(axis, "outer " + std::to_string(axis.outer) + " x inner " +
                             std::to_string(axis.inner) + " lines are not in [0, 2^31)");
  if (!std::isfinite(axis.factor))
    return failure(axis, "the factor is not finite");

  bool wide = axis.doublePrecision;
  DType complexType = wide ? DType::kComplex128 : DType::kComplex64;
  DType realType = wide ? DType::kFloat64 : DType::kFloat32;
  int64_t lines = axis.outer * axis.inner, n = axis.n, bins = n / 2 + 1;
  DType inType = complexType, outType = complexType;
  int64_t inLength = n, outLength = n;
  switch (axis.kind) {
  case FftKind::kForward:
  case FftKind::kInverse:
    break;
  case FftKind::kRealForward:
    inType = realType;
    outLength = bins;
    break;
  case FftKind::kRealInverse:
    outType = realType;
    inLength = bins;
    break;
  case FftKind::kDct2:
  case FftKind::kDct3:
    inType = outType = realType;
    break;
  }
  // A side whose functor is the caller's own (a fused prologue or epilogue)
  // may name no buffer (-1): that functor reads or writes its own.
  const Program &program = builder.program();
  if (axis.input >= 0)
    if (Status status = checkBuffer(program, axis, axis.input, "input", inType, lines * inLength);
        !status)
      return status;
  if (axis.output >= 0)
    if (Status status =
            checkBuffer(program, axis, axis.output, "output", outType, lines * outLength);
        !status)
      return status;
  if (axis.input >= 0 && axis.input == axis.output && inLength != outLength)
    return failure(axis, "input and output must be distinct buffers");

  StatusOr<Choice> choice = choose(axis);
  if (!choice)
    return choice.status();
  if (lines * batchesPerLine(choice->core, choice->path) > INT_MAX)
    return failure(axis, std::to_string(lines) +
                             " lines are too many for the multi-pass launches (2^31 transforms)");
  if (lines == 0)
    return Status::ok();
  Writer(builder, axis, ends).write(*choice);
  return Status::ok();
}

} // namespace spectral::planning
