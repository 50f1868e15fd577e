//===- SpectralBase.td - spectral dialect, enums, type constraints -------===//
#ifndef SPECTRAL_BASE_TD
#define SPECTRAL_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Spectral_Dialect : Dialect {
  let name = "spectral";
  let cppNamespace = "::mlir::spectral";
  let summary = "Spectral neural network graphs: transforms, sparse modes, training";
  let description = [{
    Ops on ranked tensors of f32, f64, complex<f32>, complex<f64>, i32, i64
    and i1. A graph is a func.func; spectral.fusion marks a region that one
    generated kernel will compute.
  }];
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

/// Scaling of a transform pair, as numpy.fft and scipy.fft name it.
def Spectral_Norm : I32EnumAttr<"Norm", "transform normalization", [
    I32EnumAttrCase<"backward", 0>,
    I32EnumAttrCase<"ortho", 1>,
    I32EnumAttrCase<"forward", 2>]> {
  let cppNamespace = "::mlir::spectral";
}

def Spectral_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::spectral";
}

def Spectral_NormAttr : DefaultValuedAttr<Spectral_Norm, "::mlir::spectral::Norm::backward">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Spectral_RealElement : AnyTypeOf<[F32, F64]>;
def Spectral_ComplexElement : AnyTypeOf<[Complex<F32>, Complex<F64>]>;
def Spectral_IntElement : AnyTypeOf<[I32, I64]>;

def Spectral_RealTensor : StaticShapeTensorOf<[F32, F64]>;
def Spectral_ComplexTensor : StaticShapeTensorOf<[Complex<F32>, Complex<F64>]>;
def Spectral_FloatTensor : StaticShapeTensorOf<[F32, F64, Complex<F32>, Complex<F64>]>;
def Spectral_NumericTensor
    : StaticShapeTensorOf<[F32, F64, Complex<F32>, Complex<F64>, I32, I64]>;
def Spectral_RealOrIntTensor : StaticShapeTensorOf<[F32, F64, I32, I64]>;
def Spectral_IndexTensor : StaticShapeTensorOf<[I64]>;
def Spectral_LabelTensor : StaticShapeTensorOf<[I32, I64]>;
def Spectral_BoolTensor : StaticShapeTensorOf<[I1]>;
def Spectral_AnyTensor
    : StaticShapeTensorOf<[F32, F64, Complex<F32>, Complex<F64>, I32, I64, I1]>;

#endif // SPECTRAL_BASE_TD
