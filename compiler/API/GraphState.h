//===- GraphState.h - what a spectral::Graph holds --------------*- C++ -*-===//
//
// The MLIR behind the public builder (include/spectral/compiler.h), shared by
// the builder (Graph.cpp), compile() (Compile.cpp) and the C API.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/API/Jit.h"
#include "spectral/compiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace spectral {

struct Graph::State {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::unique_ptr<mlir::OpBuilder> builder;  // at the end of the function's body
  std::string function;
  std::string graph_name;  // the file (or name) a parsed graph came from; empty when built
  std::vector<mlir::Value> values;  // by Value id
  std::vector<bool> donated;        // by argument, set on the function at output()
  Status first_error;
  bool finished = false;  // output() was called, or the graph was parsed
  int ops = 0;            // ops made so far: the line of the next op's location
};

/// What the builder's methods share (a friend of Value).
struct GraphAccess {
  static Value value(Graph::State &s, mlir::Value v);
  /// An error Value; `record` makes it the graph's first error too (not for
  /// calls on a complete graph, which stays compilable).
  static Value error(Graph::State &s, Status status, bool record = true);
  static StatusOr<mlir::Value> lookup(Graph::State &s, const Value &v, const std::string &op,
                                      size_t index);
  /// Makes op `name` with `results` results, their types given or inferred,
  /// verified; on any failure `results` error Values.
  static std::vector<Value> make(Graph::State &s, const std::string &name,
                                 const std::vector<Value> &operands,
                                 llvm::ArrayRef<mlir::NamedAttribute> attributes, int results,
                                 llvm::ArrayRef<mlir::Type> types = {});
  static Graph::State &state(const Graph &graph) { return *graph.state_; }
};

/// Collects the diagnostics MLIR reports while it lives, as
/// "file:line:col: error: message" lines, instead of printing them.
class DiagnosticCapture {
 public:
  explicit DiagnosticCapture(mlir::MLIRContext &context);
  /// What was reported (or `fallback` when nothing was), and forgets it.
  std::string take(const std::string &fallback);

 private:
  void append(mlir::Diagnostic &diagnostic);
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

/// The MLIR element type of `dtype`.
mlir::Type elementType(mlir::MLIRContext *context, DType dtype);

} // namespace spectral
