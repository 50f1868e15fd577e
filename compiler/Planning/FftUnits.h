//===- FftUnits.h - the FFT planner's instantiation units as text -*- C++ -*-===//
//
// Internal to the planner. A unit is an `extern "C" __global__` entry that
// calls one FFT template with a Load and a Store functor. Functors are text
// (a C++ type, the expression that builds it, the entry parameters it reads)
// so that adapters compose around them: the planner wraps the plain
// functors of one buffer in the real / DCT / multi-pass adapters of
// fft_io.cuh and fft_multipass.cuh, and fusion will hand in its own
// prologue and epilogue functors in their place (the `tag` keeps entry
// names unique then).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Codegen/ProgramBuilder.h"
#include "compiler/Planning/FftPlanner.h"
#include "runtime/program/program.h"

#include "runtime/status.h"

#include <string>
#include <vector>

namespace spectral::planning::units {

/// One entry parameter and the value each launch passes for it.
struct Param {
  std::string decl; // "const cplx<float>* in"
  StepArg arg;
};

/// A Load `(batch, i) -> value` or Store `(batch, i, value)` over the
/// logical axis [outer, n, inner] (batch = outer * inner + in), as text.
struct Functor {
  std::string type;          // "RealLoad<float>"
  std::string expr;          // "RealLoad<float>{in, AxisLayout{1000, inner}}"
  std::vector<Param> params; // the entry parameters `expr` reads
  /// Empty for the planner's plain functors; otherwise appended to entry
  /// names, so it must name everything the functor's text depends on.
  std::string tag;
  /// Code the unit needs before its entry (a fused functor's struct).
  std::string definition;
};

/// The real type's C++ name and its short name in entry names.
struct Real {
  bool wide = false;
  const char *cpp() const { return wide ? "double" : "float"; }
  const char *tag() const { return wide ? "f64" : "f32"; }
  std::string complex() const { return std::string("cplx<") + cpp() + ">"; }
  int complexBytes() const { return wide ? 16 : 8; }
};

/// Reads buffer `buffer` (as the entry parameter `name`) laid out as
/// [outer, n, inner]; `inner` is the entry's own parameter.
Functor complexLoad(Real real, const std::string &name, int buffer, int64_t n);
Functor realLoad(Real real, const std::string &name, int buffer, int64_t n);
/// Writes buffer `buffer` as [outer, n, inner], every value times `factor`
/// (an entry parameter "double factor"); `withFactor` false writes values
/// as they are (scratch arrays) with no parameter.
Functor complexStore(Real real, const std::string &name, int buffer, int64_t n, double factor,
                     bool withFactor);
Functor realStore(Real real, const std::string &name, int buffer, int64_t n, double factor);

/// `Adapter<real, inner.type>{inner.expr<rest>}` with `extra` parameters
/// added: `rest` is the text after the inner functor (", 1000, quarter").
Functor wrap(Real real, const std::string &adapter, const Functor &inner,
             const std::string &rest = "", std::vector<Param> extra = {});
/// The same for adapters templated on the inner functor only.
Functor wrap(const std::string &adapter, const Functor &inner, const std::string &rest = "",
             std::vector<Param> extra = {});

/// A complex table parameter "const cplx<T>* name".
Param table(Real real, const std::string &name, int buffer);
Param intParam(const std::string &name, int64_t value);
Param longParam(const std::string &name, int64_t value);

/// An instantiation unit being written.
struct Unit {
  std::string entry;
  std::string definitions; // before the entry
  std::vector<Param> params;
  std::string body; // statements; `shared` is the dynamic shared array
  bool usesShared = true;
  /// Every template the body calls has a phased form and the body reads no
  /// threadIdx: the unit says SPECTRAL_HOST_PHASED (host_emulation.h).
  bool phased = false;
  /// Besides, every template the body calls takes a run of blocks per phased
  /// call: the unit also says SPECTRAL_HOST_PHASED_RUNS.
  bool phasedRuns = false;
  /// Most threads per block, when the entry asks ptxas to keep two blocks
  /// per SM (__launch_bounds__(maxThreads, 2)); 0: no bounds.
  int64_t maxThreads = 0;

  /// Appends the parameters (names must be unique) and definition of `f`.
  void add(const Functor &f);
  /// The source, for `real`, and its entry.
  KernelSource source(Real real) const;
  /// The launch arguments, in parameter order.
  std::vector<StepArg> args() const;
};

/// The entry name `base` with the tags of fused functors appended.
std::string entryName(std::string base, const Functor &load, const Functor &store);

} // namespace spectral::planning::units

namespace spectral::planning {

struct FftAxis;

/// The innermost Load and Store of an axis' transform, which the planner
/// wraps in the real, DCT and multi-pass adapters: a Load over the input
/// side ([outer, n, inner] values, [outer, n/2+1, inner] bins for c2r) and a
/// Store over the output side that applies the factor.
struct AxisEnds {
  units::Functor load, store;
};

/// The plain ends: read axis.input, write axis.output times axis.factor.
AxisEnds plainEnds(const FftAxis &axis);

/// planFftAxis with other ends: the fusion seam, where codegen's rendered
/// prologue and epilogue take the plain functors' place (tagged, so that
/// entry names stay unique). axis.input / axis.output may be -1 on a side
/// whose functor is not the plain one.
Status planFftAxisWith(codegen::ProgramBuilder &builder, const FftAxis &axis,
                       const AxisEnds &ends);

/// Whether a transform of `kind` (kForward or kRealForward) and length `n`,
/// a filter of its bins and the inverse transform fit one kernel: a complex
/// Stockham length of one block taking at most kMaxRoundTripThreads, or an
/// even real length whose half is one.
bool roundTripFits(FftKind kind, int64_t n);

/// The round trip in one kernel per line (fft_roundtrip_batched,
/// fft_real_roundtrip_batched): `ends.load` reads the input side, `filter`
/// (`(batch, k, value) -> value` over the spectrum's [outer, bins, inner],
/// bins = n or n/2+1) replaces each bin, applying whatever scaling the
/// forward norm asks, and `ends.store` writes the inverse's unscaled values
/// over the input side's layout. axis.kind is the forward kind; axis.factor
/// is unused. An error when !roundTripFits.
Status planFftRoundTrip(codegen::ProgramBuilder &builder, const FftAxis &axis,
                        const AxisEnds &ends, const units::Functor &filter);

} // namespace spectral::planning
