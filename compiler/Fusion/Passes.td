//===- Passes.td - the fusion passes ------------------------*- tablegen -*-===//
#ifndef SPECTRAL_FUSION_PASSES
#define SPECTRAL_FUSION_PASSES

include "mlir/Pass/PassBase.td"

def FormFusionGroups : Pass<"spectral-fuse", "mlir::func::FuncOp"> {
  let summary = "Group ops into spectral.fusion regions, one generated kernel each";
  let description = [{
    Forms the regions codegen compiles as one kernel (see OpKinds.h): around
    each anchor (a transform, reduction, softmax, matmul or channel_mix), the
    elementwise ops only it uses join its loads, and the pointwise ops that
    read its result at the element being stored join its store; the
    remaining chains of elementwise ops become one kernel each. With
    `remarks`, every producer/consumer pair left in different kernels gets a
    remark at the producer's location saying why.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Remark on every producer/consumer pair left unfused, with the reason">,
    Option<"blockPrograms", "block-programs", "bool", /*default=*/"false",
           "Run connected small work (reductions, softmax, losses of at most 2^20 "
           "element operations in all) as one kernel of one block">
  ];
  let dependentDialects = ["mlir::spectral::SpectralDialect"];
}

#endif // SPECTRAL_FUSION_PASSES
