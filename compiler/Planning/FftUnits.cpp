//===- FftUnits.cpp - the FFT planner's instantiation units as text -------===//
#include "compiler/Planning/FftUnits.h"

#include <cassert>
#include <set>

namespace spectral::planning::units {
namespace {

const char *const kPrelude = "#include \"common.cuh\"\n"
                             "#include \"fft_io.cuh\"\n"
                             "#include \"fft_stockham.cuh\"\n"
                             "#include \"fft_bluestein.cuh\"\n"
                             "#include \"fft_real.cuh\"\n"
                             "#include \"fft_multipass.cuh\"\n"
                             "using namespace spectral_fft;\n";

std::string layout(int64_t n) { return "AxisLayout{" + std::to_string(n) + ", inner}"; }

} // namespace

Functor complexLoad(Real real, const std::string &name, int buffer, int64_t n) {
  std::string type = "ComplexLoad<" + std::string(real.cpp()) + ">";
  return {type,
          type + "{" + name + ", " + layout(n) + "}",
          {{"const " + real.complex() + "* " + name, StepArg::of_buffer(buffer)}},
          "",
          ""};
}

Functor realLoad(Real real, const std::string &name, int buffer, int64_t n) {
  std::string type = "RealLoad<" + std::string(real.cpp()) + ">";
  return {type,
          type + "{" + name + ", " + layout(n) + "}",
          {{"const " + std::string(real.cpp()) + "* " + name, StepArg::of_buffer(buffer)}},
          "",
          ""};
}

Functor complexStore(Real real, const std::string &name, int buffer, int64_t n, double factor,
                     bool withFactor) {
  std::string type = "ComplexStore<" + std::string(real.cpp()) + ">";
  Functor store{type,
                type + "{" + name + ", " + layout(n) + ", " + real.cpp() +
                    (withFactor ? "(factor)}" : "(1)}"),
                {{real.complex() + "* " + name, StepArg::of_buffer(buffer)}},
                "",
          ""};
  if (withFactor)
    store.params.push_back({"double factor", StepArg::f64(factor)});
  return store;
}

Functor realStore(Real real, const std::string &name, int buffer, int64_t n, double factor) {
  std::string type = "RealStore<" + std::string(real.cpp()) + ">";
  return {type,
          type + "{" + name + ", " + layout(n) + ", " + real.cpp() + "(factor)}",
          {{std::string(real.cpp()) + "* " + name, StepArg::of_buffer(buffer)},
           {"double factor", StepArg::f64(factor)}},
          "",
          ""};
}

namespace {

/// `type{inner.expr<rest>}`, reading inner's parameters and `extra`.
Functor wrapped(std::string type, const Functor &inner, const std::string &rest,
                std::vector<Param> extra) {
  Functor out{type, type + "{" + inner.expr + rest + "}", inner.params, inner.tag,
              inner.definition};
  out.params.insert(out.params.end(), extra.begin(), extra.end());
  return out;
}

} // namespace

Functor wrap(Real real, const std::string &adapter, const Functor &inner, const std::string &rest,
             std::vector<Param> extra) {
  return wrapped(adapter + "<" + real.cpp() + ", " + inner.type + ">", inner, rest,
                 std::move(extra));
}

Functor wrap(const std::string &adapter, const Functor &inner, const std::string &rest,
             std::vector<Param> extra) {
  return wrapped(adapter + "<" + inner.type + ">", inner, rest, std::move(extra));
}

Param table(Real real, const std::string &name, int buffer) {
  return {"const " + real.complex() + "* " + name, StepArg::of_buffer(buffer)};
}

Param intParam(const std::string &name, int64_t value) {
  return {"int " + name, StepArg::i32(value)};
}

Param longParam(const std::string &name, int64_t value) {
  return {"long long " + name, StepArg::i64(value)};
}

void Unit::add(const Functor &f) {
  params.insert(params.end(), f.params.begin(), f.params.end());
  if (!f.definition.empty() && definitions.find(f.definition) == std::string::npos)
    definitions += f.definition + "\n";
}

KernelSource Unit::source(Real real) const {
  std::string text =
      std::string(kPrelude) + "\n" + definitions + (phased ? "SPECTRAL_HOST_PHASED;\n" : "") +
      (phased && phasedRuns ? "SPECTRAL_HOST_PHASED_RUNS;\n" : "") +
      "extern \"C\" __global__ void " +
      (maxThreads ? "__launch_bounds__(" + std::to_string(maxThreads) + ", 2) " : "") + entry + "(";
  std::set<std::string> names;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string name = params[i].decl.substr(params[i].decl.find_last_of(" *") + 1);
    bool fresh = names.insert(name).second;
    assert(fresh && "two entry parameters with one name");
    (void)fresh;
    text += (i ? ", " : "") + params[i].decl;
  }
  text += ") {\n";
  if (usesShared)
    text += "  SPECTRAL_DYNAMIC_SHARED(" + real.complex() + ", shared);\n";
  text += body + "}\n";
  return {std::move(text), entry};
}

std::vector<StepArg> Unit::args() const {
  std::vector<StepArg> args;
  for (const Param &p : params)
    args.push_back(p.arg);
  return args;
}

std::string entryName(std::string base, const Functor &load, const Functor &store) {
  if (!load.tag.empty())
    base += "_L" + load.tag;
  if (!store.tag.empty())
    base += "_S" + store.tag;
  return base;
}

} // namespace spectral::planning::units
