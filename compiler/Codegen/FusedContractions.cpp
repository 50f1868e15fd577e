//===- FusedContractions.cpp - elementwise ops in a contraction's loads and stores ===//
//
// A spectral.fusion region of elementwise ops around one matmul or
// channel_mix runs as that op's one kernel (Contractions.cpp) through its
// ends (FusedReductions.h): the ops each operand needs become that
// operand's Load, called at the operand's own row-major offset (for a
// matmul, its broadcast batch offset + r * cols + c), so a scaled or
// activated input is never written out; the ops after it become the Store,
// so each yielded element (a bias added, an activation, a scaling) is
// computed from the product's element as it is stored: gelu(x w + b) is one
// launch.
//
// What does not fit that shape (two anchors or another op, a yielded value
// of another shape or not computed by the region, an op after the product
// that reads it at another element, ops that can fail, an empty product or
// dims past 2^31 - 1) is left to the op-by-op path: lowerFusedContraction
// returns false before it adds anything to the Program.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/FusedContractions.h"

#include "compiler/Codegen/FusedRegion.h"

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {

llvm::Expected<bool> lowerFusedContraction(CodegenContext &context, sp::FusionOp fusion,
                                           llvm::ArrayRef<Operation *> ops) {
  std::optional<FusedRegion> region = analyzeFusedRegion(fusion, ops, takesContractionEnds, "i");
  if (!region) return false;
  if (region->yielded.empty()) return true;  // nothing is used: no kernel
  Operation *anchor = region->anchor;
  std::vector<int> outputs = fusionOutputs(context, fusion);
  std::vector<ElementEnd> loads;
  for (unsigned k = 0; k < 2; ++k) {
    const std::optional<FusedPrologue> &pro = region->prologues[k];
    loads.push_back(pro ? fusedLoad(context, pro->group, pro->ops, k ? "B" : "A")
                        : bufferLoad(context, k ? "rhs" : "lhs",
                                     context.bufferOf(anchor->getOperand(k))));
  }
  ElementEnd store = region->epilogue
                         ? fusedStore(context, *region->epilogue, region->after, outputs)
                         : bufferStore(context, "out", outputs[0]);
  if (llvm::Error error = lowerContractionWithEnds(context, anchor, loads[0], loads[1], store))
    return error;
  return true;
}

} // namespace spectral::codegen
