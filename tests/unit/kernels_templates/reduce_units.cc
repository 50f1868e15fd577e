// reduce_units.cc - instantiation units for the reduction, softmax and loss templates.
// Those whose templates have a phased form say SPECTRAL_HOST_PHASED, as codegen's do.
#include "tests/unit/kernels_templates/reduce_units.h"

#include "tests/unit/kernels_templates/kernel_test_util.h"

#include <map>

namespace spectral::testing {
namespace {

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"loss.cuh\"\n"
    "using namespace spectral_reduce;\n";

/// "float" -> "float", "long long" -> "long_long", "cplx<float>" -> "cplx_float".
std::string identifier(std::string type) {
  std::string out;
  for (char c : type)
    if (c == ' ' || c == '<') out += '_';
    else if (c != '>') out += c;
  return out;
}

std::map<std::string, std::string> values_for(const std::string& type, RowBlock block = {0, 0}) {
  return {{"$TYPE", type},
          {"$NAME", identifier(type)},
          {"$BX", std::to_string(block.x)},
          {"$ROWS", std::to_string(block.rows)}};
}

KernelSource unit(const std::string& body, const std::string& entry,
                  const std::map<std::string, std::string>& values) {
  return {fill(std::string(kPrelude) + body, values), fill(entry, values)};
}

}  // namespace

const std::vector<RowBlock>& row_blocks(const std::string& type) {
  static const std::vector<RowBlock> all{{8, 32}, {32, 8}, {64, 4}, {256, 1}};
  static const std::vector<RowBlock> some{{32, 8}, {256, 1}};
  return type == "double" ? some : all;
}

const std::vector<CrossEntropyUnit>& cross_entropy_units() {
  static const std::vector<CrossEntropyUnit> units{{"float", "int", {32, 8}},
                                                   {"float", "int", {256, 1}},
                                                   {"float", "long long", {256, 1}},
                                                   {"double", "long long", {256, 1}}};
  return units;
}

KernelSource reduce_rows_unit(const std::string& type, RowBlock block) {
  return unit(R"(
SPECTRAL_HOST_PHASED;
struct ScaledRows {
  const $TYPE* x;
  long long n;
  $TYPE scale;
  __device__ $TYPE operator()(long long row, long long i) const { return scale * x[row * n + i]; }
};

extern "C" __global__ void reduce_rows_$NAME_$BXx$ROWS(const $TYPE* x, $TYPE* out, long long rows,
    long long n, $TYPE scale, int op) {
  ScaledRows load{x, n, scale};
  FlatStore<$TYPE> store{out};
  if (op == 0) reduce_rows<$BX, $ROWS, $TYPE>(rows, n, Sum<$TYPE>(), load, store);
  else if (op == 1) reduce_rows<$BX, $ROWS, $TYPE>(rows, n, Mean<$TYPE>(), load, store);
  else reduce_rows<$BX, $ROWS, $TYPE>(rows, n, Max<$TYPE>(), load, store);
}
)",
              "reduce_rows_$NAME_$BXx$ROWS", values_for(type, block));
}

KernelSource reduce_partials_unit(const std::string& type) {
  std::map<std::string, std::string> values = values_for(type);
  values["$BLOCK"] = std::to_string(kGridBlock);
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void reduce_partials_$NAME(const $TYPE* x, $TYPE* partials, long long n,
    int op) {
  FlatLoad<$TYPE> load{x};
  FlatStore<$TYPE> store{partials};
  if (op == 2) reduce_partials<$BLOCK, $TYPE>(n, Max<$TYPE>(), load, store);
  else reduce_partials<$BLOCK, $TYPE>(n, Sum<$TYPE>(), load, store);
}
)",
              "reduce_partials_$NAME", values);
}

KernelSource reduce_final_unit(const std::string& type) {
  std::map<std::string, std::string> values = values_for(type);
  values["$BLOCK"] = std::to_string(kGridBlock);
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void reduce_final_$NAME(const $TYPE* partials, $TYPE* out, long long count,
    long long total, int op) {
  FlatLoad<$TYPE> load{partials};
  FlatStore<$TYPE> store{out};
  if (op == 0) reduce_final<$BLOCK, $TYPE>(count, total, Sum<$TYPE>(), load, store);
  else if (op == 1) reduce_final<$BLOCK, $TYPE>(count, total, Mean<$TYPE>(), load, store);
  else reduce_final<$BLOCK, $TYPE>(count, total, Max<$TYPE>(), load, store);
}
)",
              "reduce_final_$NAME", values);
}

KernelSource softmax_unit(const std::string& type, RowBlock block) {
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void softmax_$NAME_$BXx$ROWS(const $TYPE* x, $TYPE* y, long long rows,
    long long n, int log_softmax) {
  RowLoad<$TYPE> load{x, n};
  RowStore<$TYPE> store{y, n};
  if (log_softmax) softmax_rows<$BX, $ROWS, true, $TYPE>(rows, n, load, store);
  else softmax_rows<$BX, $ROWS, false, $TYPE>(rows, n, load, store);
}
)",
              "softmax_$NAME_$BXx$ROWS", values_for(type, block));
}

KernelSource cross_entropy_unit(const std::string& type, const std::string& label, RowBlock block) {
  std::map<std::string, std::string> values = values_for(type, block);
  values["$LABEL"] = label;
  values["$LNAME"] = identifier(label);
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void cross_entropy_$NAME_$LNAME_$BXx$ROWS(const $TYPE* logits,
    const $LABEL* labels, $TYPE* losses, long long rows, long long n) {
  cross_entropy_rows<$BX, $ROWS, $TYPE>(rows, n, RowLoad<$TYPE>{logits, n}, labels,
                                        FlatStore<$TYPE>{losses});
}
)",
              "cross_entropy_$NAME_$LNAME_$BXx$ROWS", values);
}

KernelSource mse_partials_unit(const std::string& value_type, const std::string& real_type) {
  std::map<std::string, std::string> values = values_for(value_type);
  values["$REAL"] = real_type;
  values["$BLOCK"] = std::to_string(kGridBlock);
  return unit(R"(
extern "C" __global__ void mse_partials_$NAME(const $TYPE* a, const $TYPE* b, $REAL* partials,
    long long n) {
  reduce_partials<$BLOCK, $REAL>(n, Mean<$REAL>(), SquaredErrorLoad<$TYPE>{a, b},
                                 FlatStore<$REAL>{partials});
}
)",
              "mse_partials_$NAME", values);
}

KernelSource norm_partials_unit(const std::string& type) {
  std::map<std::string, std::string> values = values_for(type);
  values["$BLOCK"] = std::to_string(kGridBlock);
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void norm_partials_$NAME(const TensorRef<$TYPE>* tensors,
    $TYPE* partials) {
  norm_partials<$BLOCK, $TYPE>(tensors, partials);
}
)",
              "norm_partials_$NAME", values);
}

KernelSource norm_final_unit(const std::string& type) {
  std::map<std::string, std::string> values = values_for(type);
  values["$BLOCK"] = std::to_string(kGridBlock);
  return unit(R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void norm_final_$NAME(int tensors, int chunks, const $TYPE* partials,
    $TYPE max_norm, $TYPE* out) {
  norm_final<$BLOCK, $TYPE>(tensors, chunks, partials, max_norm, FlatStore<$TYPE>{out});
}
)",
              "norm_final_$NAME", values);
}

std::vector<KernelSource> reduce_units_to_compile() {
  std::vector<KernelSource> units;
  for (const std::string type : {"float", "double"}) {
    for (RowBlock block : row_blocks(type)) {
      units.push_back(reduce_rows_unit(type, block));
      units.push_back(softmax_unit(type, block));
    }
    units.push_back(reduce_partials_unit(type));
    units.push_back(reduce_final_unit(type));
    units.push_back(norm_partials_unit(type));
    units.push_back(norm_final_unit(type));
  }
  for (const CrossEntropyUnit& u : cross_entropy_units())
    units.push_back(cross_entropy_unit(u.type, u.label, u.block));
  units.push_back(mse_partials_unit("float", "float"));
  units.push_back(mse_partials_unit("double", "double"));
  units.push_back(mse_partials_unit("cplx<float>", "float"));
  units.push_back(mse_partials_unit("cplx<double>", "double"));
  return units;
}

}  // namespace spectral::testing
