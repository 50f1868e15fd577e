//===- SpectralDialect.cpp - the spectral dialect -------------------------===//
#include "dialects/spectral/IR/SpectralDialect.h"
#include "dialects/spectral/IR/SpectralOps.h"

using namespace mlir;
using namespace mlir::spectral;

#include "dialects/spectral/IR/SpectralDialect.cpp.inc"

void SpectralDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/spectral/IR/SpectralOps.cpp.inc"
      >();
}

Operation *SpectralDialect::materializeConstant(OpBuilder &builder,
                                                Attribute value, Type type,
                                                Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}
