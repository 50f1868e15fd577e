// RUN: spectral-opt %s --spectral-fuse --split-input-file | FileCheck %s
// RUN: spectral-opt %s --spectral-fuse=remarks --split-input-file --verify-diagnostics \
// RUN:   --mlir-print-op-on-diagnostic=false -o /dev/null

// Rule 1: a chain of elementwise ops (pointwise, broadcasting, moving
// elements) is one region; a splat constant is cloned into it as a literal.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[R:.*]] = spectral.fusion %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<4x8xf32>, %[[A1:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[TWO:.*]] = spectral.constant dense<2.000000e+00>
// CHECK-NEXT:      %[[M:.*]] = spectral.mul %[[A0]], %[[TWO]]
// CHECK-NEXT:      %[[B:.*]] = spectral.add %[[M]], %[[A1]]
// CHECK-NEXT:      %[[T:.*]] = spectral.transpose %[[B]] perm [1, 0]
// CHECK-NEXT:      %[[U:.*]] = spectral.relu %[[T]]
// CHECK-NEXT:      spectral.yield %[[U]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<8x4xf32> {
  %two = spectral.constant dense<2.0> : tensor<4x8xf32>
  %a = spectral.mul %x, %two : tensor<4x8xf32>, tensor<4x8xf32>
  %b = spectral.add %a, %y : tensor<4x8xf32>, tensor<8xf32>
  %t = spectral.transpose %b perm [1, 0] : tensor<4x8xf32>
  %r = spectral.relu %t : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// The 1-D FNO layer: rfft, the low modes, channel_mix, zero padding and
// irfft are one spectral convolution, the bias and GELU in its store: one
// kernel from seven ops.
// CHECK-LABEL: func.func @spectral_conv
// CHECK-NEXT:    %[[Y:.*]] = spectral.fusion %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.rfft
// CHECK-NEXT:      spectral.slice
// CHECK-NEXT:      spectral.channel_mix
// CHECK-NEXT:      spectral.pad
// CHECK-NEXT:      spectral.irfft
// CHECK-NEXT:      spectral.add
// CHECK-NEXT:      spectral.gelu
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @spectral_conv(%x: tensor<4x8x128xf32>, %weights: tensor<8x8x16xcomplex<f32>>,
                         %bias: tensor<8x1xf32>) -> tensor<4x8x128xf32> {
  %spectrum = spectral.rfft %x axes [2] : tensor<4x8x128xf32>
  %low = spectral.slice %spectrum start [0, 0, 0] limit [4, 8, 16]
      : tensor<4x8x65xcomplex<f32>>
  %mixed = spectral.channel_mix %low, %weights
      : tensor<4x8x16xcomplex<f32>>, tensor<8x8x16xcomplex<f32>>
  %full = spectral.pad %mixed low [0, 0, 0] high [0, 0, 49]
      : tensor<4x8x16xcomplex<f32>>
  %y = spectral.irfft %full axes [2] length 128 : tensor<4x8x65xcomplex<f32>>
  %biased = spectral.add %y, %bias : tensor<4x8x128xf32>, tensor<8x1xf32>
  %out = spectral.gelu %biased : tensor<4x8x128xf32>
  return %out : tensor<4x8x128xf32>
}

// -----

// A producer also used elsewhere is not recomputed in a load.
// CHECK-LABEL: func.func @shared_producer
// CHECK-NEXT:    spectral.conj
// CHECK-NEXT:    spectral.fft
// CHECK-NEXT:    return
func.func @shared_producer(%x: tensor<16xcomplex<f32>>)
    -> (tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>) {
  // expected-remark @below {{not fused with its consumer 'spectral.fft'}}
  %c = spectral.conj %x : tensor<16xcomplex<f32>>
  %f = spectral.fft %c axes [0] : tensor<16xcomplex<f32>>
  return %f, %c : tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>
}

// -----

// What a store or a load refuses: an op moving elements, a second anchor, a
// value of another shape, a value computed from the group's results, an op
// that can fail (it keeps its own kernel, whose error word names it).
// CHECK-LABEL: func.func @refusals
// CHECK-NEXT:    %[[F:.*]] = spectral.fft
// CHECK-NEXT:    %[[T:.*]] = spectral.transpose %[[F]]
// CHECK-NEXT:    %[[Q:.*]] = spectral.div
// CHECK-NEXT:    %[[G:.*]] = spectral.fusion %[[Q]], %[[F]]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.cast
// CHECK-NEXT:      spectral.fft
// CHECK-NEXT:      spectral.add
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[W:.*]] = spectral.fusion %[[G]]
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.reduce_sum
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[B:.*]] = spectral.mul %[[G]], %[[W]]
// CHECK-NEXT:    return %[[T]], %[[B]]
func.func @refusals(%x: tensor<4x16xcomplex<f32>>, %n: tensor<4x16xi32>, %d: tensor<4x16xi32>)
    -> (tensor<16x4xcomplex<f32>>, tensor<4x16xcomplex<f32>>) {
  // expected-remark @below {{): it moves elements, so it would read the anchor's result at another element}}
  // expected-remark-re @below {{consumer 'spectral.fft' ({{.*}}anchors a kernel of its own}}
  %f = spectral.fft %x axes [1] : tensor<4x16xcomplex<f32>>
  %t = spectral.transpose %f perm [1, 0] : tensor<4x16xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.cast' ({{.*}}it can fail at run time (integer division by zero), which a fused load cannot report}}
  %q = spectral.div %n, %d : tensor<4x16xi32>, tensor<4x16xi32>
  %c = spectral.cast %q : tensor<4x16xi32> to tensor<4x16xcomplex<f32>>
  %g = spectral.fft %f axes [0] : tensor<4x16xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.reduce_sum' ({{.*}}'spectral.reduce_sum' ({{.*}}anchors a kernel of its own}}
  // expected-remark-re @below {{consumer 'spectral.mul' ({{.*}}it also reads a value computed from the group's own results}}
  %s = spectral.add %g, %c : tensor<4x16xcomplex<f32>>, tensor<4x16xcomplex<f32>>
  %r = spectral.reduce_sum %s axes [1] keepdims : tensor<4x16xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.mul' ({{.*}}its result's shape differs from the anchor's}}
  %w = spectral.exp %r : tensor<4x1xcomplex<f32>>
  %b = spectral.mul %s, %w : tensor<4x16xcomplex<f32>>, tensor<4x1xcomplex<f32>>
  return %t, %b : tensor<16x4xcomplex<f32>>, tensor<4x16xcomplex<f32>>
}

// -----

// The division reads the reduction of its own operand: joining the sum's
// kernel would make a region that reads its own result. The exp, cheap,
// is computed in both kernels instead of written once and read back.
// CHECK-LABEL: func.func @no_cycle
// CHECK-NEXT:    %[[S:.*]] = spectral.fusion %{{.*}} :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.reduce_sum
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = spectral.fusion %{{.*}}, %[[S]] :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.div
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @no_cycle(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = spectral.exp %x : tensor<4x16xf32>
  // expected-remark-re @below {{consumer 'spectral.div' ({{.*}}its result's shape differs from the anchor's}}
  %s = spectral.reduce_sum %e axes [1] keepdims : tensor<4x16xf32>
  %r = spectral.div %e, %s : tensor<4x16xf32>, tensor<4x1xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Views alone make no kernel, and one op is no region.
// CHECK-LABEL: func.func @views_alone
// CHECK-NEXT:    spectral.reshape
// CHECK-NEXT:    spectral.reshape
// CHECK-NEXT:    spectral.neg
// CHECK-NEXT:    return
func.func @views_alone(%x: tensor<4x8xf32>, %y: tensor<3xf32>) -> (tensor<2x16xf32>, tensor<3xf32>) {
  %a = spectral.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %b = spectral.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %n = spectral.neg %y : tensor<3xf32>
  return %b, %n : tensor<2x16xf32>, tensor<3xf32>
}

// -----

// Two chains read a cheap op: each computes it.
// CHECK-LABEL: func.func @reordered
// CHECK-NEXT:    %[[C:.*]] = spectral.fusion %{{.*}}, %{{.*}} :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.neg
// CHECK-NEXT:      spectral.add
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = spectral.fusion %{{.*}} :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.neg
// CHECK-NEXT:      spectral.mul
// CHECK-NEXT:      spectral.tanh
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[C]], %[[E]]
func.func @reordered(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = spectral.exp %x : tensor<8xf32>
  %b = spectral.neg %y : tensor<8xf32>
  %c = spectral.add %a, %b : tensor<8xf32>, tensor<8xf32>
  %d = spectral.mul %b, %b : tensor<8xf32>, tensor<8xf32>
  %e = spectral.tanh %d : tensor<8xf32>
  return %c, %e : tensor<8xf32>, tensor<8xf32>
}

// -----

// A round trip: an rfft whose store reaches its irfft through pointwise ops
// takes the irfft too (the filter runs on the spectrum in shared memory),
// then the bias in the irfft's store; one kernel.
// CHECK-LABEL: func.func @spectral_filter
// CHECK-NEXT:    %[[R:.*]] = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.tanh
// CHECK-NEXT:      spectral.rfft
// CHECK-NEXT:      spectral.mul
// CHECK-NEXT:      spectral.irfft
// CHECK-NEXT:      spectral.add
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @spectral_filter(%x: tensor<8x4096xf32>, %w: tensor<2049xcomplex<f32>>,
                           %b: tensor<4096xf32>) -> tensor<8x4096xf32> {
  %t = spectral.tanh %x : tensor<8x4096xf32>
  %s = spectral.rfft %t axes [1] : tensor<8x4096xf32>
  %m = spectral.mul %s, %w : tensor<8x2049xcomplex<f32>>, tensor<2049xcomplex<f32>>
  %y = spectral.irfft %m axes [1] length 4096 : tensor<8x2049xcomplex<f32>>
  %z = spectral.add %y, %b : tensor<8x4096xf32>, tensor<4096xf32>
  return %z : tensor<8x4096xf32>
}

// -----

// What a round trip refuses: a length beyond it, two axes, a filtered
// spectrum used elsewhere; each transform keeps its own kernel.
// CHECK-LABEL: func.func @round_trip_refusals
// CHECK-COUNT-3: spectral.ifft
// CHECK:         return
func.func @round_trip_refusals(%x: tensor<2x4096xcomplex<f32>>, %y: tensor<4x8xcomplex<f32>>)
    -> (tensor<2x4096xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>,
        tensor<4x8xcomplex<f32>>) {
  // expected-remark-re @below {{consumer 'spectral.ifft' ({{.*}}a length of 4096 does not fit one round-trip kernel (complex lengths up to 2048}}
  %f = spectral.fft %x axes [1] : tensor<2x4096xcomplex<f32>>
  %g = spectral.ifft %f axes [1] : tensor<2x4096xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.ifft' ({{.*}}a transform and its inverse run as one kernel along one and the same axis}}
  %h = spectral.fft %y axes [0, 1] : tensor<4x8xcomplex<f32>>
  %i = spectral.ifft %h axes [0, 1] : tensor<4x8xcomplex<f32>>
  %j = spectral.fft %y axes [1] : tensor<4x8xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.ifft' ({{.*}}the spectrum or a value filtered from it is also used by 'spectral.abs'}}
  %k = spectral.mul %j, %j : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
  %l = spectral.ifft %k axes [1] : tensor<4x8xcomplex<f32>>
  %a = spectral.abs %k : tensor<4x8xcomplex<f32>>
  %c = spectral.cast %a : tensor<4x8xf32> to tensor<4x8xcomplex<f32>>
  return %g, %i, %l, %c : tensor<2x4096xcomplex<f32>>, tensor<4x8xcomplex<f32>>,
      tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
}

// -----

// Losses are anchors: the logits' ops in the load, the scaling of the loss
// in the store; computed labels are read as they are, so their cast keeps
// a kernel of its own.
// CHECK-LABEL: func.func @losses
// CHECK-NEXT:    %[[L:.*]] = spectral.cast
// CHECK-NEXT:    %[[E:.*]] = spectral.fusion %{{.*}}, %{{.*}}, %[[L]] :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.constant dense<5.000000e-01>
// CHECK-NEXT:      spectral.add
// CHECK-NEXT:      spectral.cross_entropy
// CHECK-NEXT:      spectral.mul
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.*]] = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.mse
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[E]], %[[M]]
func.func @losses(%x: tensor<4x10xf32>, %b: tensor<10xf32>, %f: tensor<4xf32>)
    -> (tensor<f32>, tensor<f32>) {
  %half = spectral.constant dense<0.5> : tensor<f32>
  %z = spectral.add %x, %b : tensor<4x10xf32>, tensor<10xf32>
  // expected-remark-re @below {{consumer 'spectral.cross_entropy' ({{.*}}the anchor reads that operand as it is, not through a fused load}}
  %l = spectral.cast %f : tensor<4xf32> to tensor<4xi32>
  %e = spectral.cross_entropy %z, %l : tensor<4x10xf32>, tensor<4xi32>
  %h = spectral.mul %e, %half : tensor<f32>, tensor<f32>
  %p = spectral.exp %x : tensor<4x10xf32>
  %m = spectral.mse %p, %x : tensor<4x10xf32>
  return %h, %m : tensor<f32>, tensor<f32>
}

// -----

// An optimizer step computes its gradient in its loads (here the clip
// scale times the gradient); its state is read as it is.
// CHECK-LABEL: func.func @scaled_step
// CHECK-NEXT:    %[[N:.*]] = spectral.neg
// CHECK-NEXT:    %[[S:.*]]:2 = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.mul
// CHECK-NEXT:      spectral.sgd_step
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]]#0, %[[S]]#1
func.func @scaled_step(%p: tensor<16xf32>, %g: tensor<16xf32>, %v: tensor<16xf32>,
                       %scale: tensor<1xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c = spectral.mul %g, %scale : tensor<16xf32>, tensor<1xf32>
  // expected-remark-re @below {{consumer 'spectral.sgd_step' ({{.*}}the anchor reads that operand as it is, not through a fused load}}
  %n = spectral.neg %v : tensor<16xf32>
  %q, %w = spectral.sgd_step %p, %c, %n lr 1.0e-01 momentum 9.0e-01 : tensor<16xf32>
  return %q, %w : tensor<16xf32>, tensor<16xf32>
}

// -----

// topk_modes, gather and scatter compute their dense operand in their
// loads; their results are stored as they are.
// CHECK-LABEL: func.func @sparse_anchors
// CHECK-NEXT:    %[[T:.*]]:2 = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.abs
// CHECK-NEXT:      spectral.topk_modes
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[G:.*]] = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.exp
// CHECK-NEXT:      spectral.gather
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N:.*]] = spectral.neg %[[G]]
// CHECK-NEXT:    return %[[T]]#0, %[[T]]#1, %[[N]]
func.func @sparse_anchors(%x: tensor<4x16xf32>, %i: tensor<4x3xi64>)
    -> (tensor<4x2xf32>, tensor<4x2xi64>, tensor<4x3xf32>) {
  %a = spectral.abs %x : tensor<4x16xf32>
  %v, %k = spectral.topk_modes %a k 2 : tensor<4x16xf32>
  %e = spectral.exp %x : tensor<4x16xf32>
  // expected-remark-re @below {{consumer 'spectral.neg' ({{.*}}'spectral.gather' ({{.*}}takes no fused stores}}
  %g = spectral.gather %e[%i] : tensor<4x16xf32>, tensor<4x3xi64>
  %n = spectral.neg %g : tensor<4x3xf32>
  return %v, %k, %n : tensor<4x2xf32>, tensor<4x2xi64>, tensor<4x3xf32>
}

// -----

// A spectral convolution whose modes are used elsewhere is not one kernel:
// the slice's other use keeps the rfft's result in memory.
// CHECK-LABEL: func.func @spectral_conv_refused
// CHECK:         spectral.rfft
// CHECK:         spectral.irfft
func.func @spectral_conv_refused(%x: tensor<2x4x32xf32>, %w: tensor<4x4x5xcomplex<f32>>)
    -> (tensor<2x4x32xf32>, tensor<2x4x5xf32>) {
  // expected-remark @below {{consumer 'spectral.slice' (}}
  %s = spectral.rfft %x axes [2] : tensor<2x4x32xf32>
  // expected-remark @below {{consumer 'spectral.channel_mix' (}}
  %l = spectral.slice %s start [0, 0, 0] limit [2, 4, 5] : tensor<2x4x17xcomplex<f32>>
  // expected-remark @below {{consumer 'spectral.pad' (}}
  %m = spectral.channel_mix %l, %w : tensor<2x4x5xcomplex<f32>>, tensor<4x4x5xcomplex<f32>>
  %p = spectral.pad %m low [0, 0, 0] high [0, 0, 12] : tensor<2x4x5xcomplex<f32>>
  %y = spectral.irfft %p axes [2] length 32 : tensor<2x4x17xcomplex<f32>>
  %a = spectral.abs %l : tensor<2x4x5xcomplex<f32>>
  return %y, %a : tensor<2x4x32xf32>, tensor<2x4x5xf32>
}

// -----

// Optimizer steps of one kind, attributes and step counter update all their
// tensors in one launch; another learning rate is another launch.
// CHECK-LABEL: func.func @all_parameters
// CHECK-NEXT:    %[[S:.*]]:6 = spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.adam_step
// CHECK-NEXT:      spectral.adam_step
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %{{.*}} = spectral.adam_step {{.*}} lr 2.000000e-02
func.func @all_parameters(%p: tensor<16xf32>, %g: tensor<16xf32>, %q: tensor<4x4xf32>,
                          %h: tensor<4x4xf32>, %t: tensor<i64>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4x4xf32>, tensor<4x4xf32>,
        tensor<4x4xf32>, tensor<16xf32>) {
  %p1, %m1, %v1 = spectral.adam_step %p, %g, %g, %g, %t lr 1.0e-02 : tensor<16xf32>, tensor<16xf32>, tensor<i64>
  %q1, %m2, %v2 = spectral.adam_step %q, %h, %h, %h, %t lr 1.0e-02 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<i64>
  %p2, %m3, %v3 = spectral.adam_step %p, %g, %g, %g, %t lr 2.0e-02 : tensor<16xf32>, tensor<16xf32>, tensor<i64>
  return %p1, %m1, %v1, %q1, %m2, %v2, %p2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
      tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<16xf32>
}

// -----

// A chain shaped like a spectral convolution that is not one says why.
// CHECK-LABEL: func.func @spectral_conv_padded_with_ones
// CHECK:         spectral.rfft
func.func @spectral_conv_padded_with_ones(%x: tensor<2x4x22xf32>, %w: tensor<4x4x5xcomplex<f32>>)
    -> tensor<2x4x22xf32> {
  // expected-remark-re @below {{consumer 'spectral.slice' ({{.*}}not a spectral convolution of one kernel: the padding does not restore the spectrum with zeros above the modes}}
  %s = spectral.rfft %x axes [2] : tensor<2x4x22xf32>
  %l = spectral.slice %s start [0, 0, 0] limit [2, 4, 5] : tensor<2x4x12xcomplex<f32>>
  // expected-remark @below {{consumer 'spectral.pad' (}}
  %m = spectral.channel_mix %l, %w : tensor<2x4x5xcomplex<f32>>, tensor<4x4x5xcomplex<f32>>
  %p = spectral.pad %m low [0, 0, 0] high [0, 0, 7] value 1.0 : tensor<2x4x5xcomplex<f32>>
  %y = spectral.irfft %p axes [2] length 22 : tensor<2x4x12xcomplex<f32>>
  return %y : tensor<2x4x22xf32>
}

// -----

// A cheap op several kernels read is computed again in each instead of
// written once and read back: x - mean(x) reads x and a column of means,
// less than twice the difference itself (a normalization over columns; over
// rows, a row program computes it all in one kernel).
// CHECK-LABEL: func.func @recompute_cheap_producer
// CHECK-NEXT:    %[[M:.*]] = spectral.reduce_mean
// CHECK-NEXT:    %[[V:.*]] = spectral.fusion %{{.*}}, %[[M]] :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.sub
// CHECK-NEXT:      spectral.mul
// CHECK-NEXT:      spectral.reduce_mean
// CHECK-NEXT:      spectral.sqrt
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N:.*]] = spectral.fusion %{{.*}}, %[[M]], %[[V]] :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.sub
// CHECK-NEXT:      spectral.div
// CHECK-NEXT:      spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[N]]
func.func @recompute_cheap_producer(%h: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-remark-re @below {{consumer 'spectral.sub' ({{.*}}its result's shape differs from the anchor's}}
  %mean = spectral.reduce_mean %h axes [0] keepdims : tensor<64x16xf32>
  %c = spectral.sub %h, %mean : tensor<64x16xf32>, tensor<1x16xf32>
  %sq = spectral.mul %c, %c : tensor<64x16xf32>, tensor<64x16xf32>
  %var = spectral.reduce_mean %sq axes [0] keepdims : tensor<64x16xf32>
  // expected-remark-re @below {{consumer 'spectral.div' ({{.*}}its result's shape differs from the anchor's}}
  %std = spectral.sqrt %var : tensor<1x16xf32>
  %n = spectral.div %c, %std : tensor<64x16xf32>, tensor<1x16xf32>
  return %n : tensor<64x16xf32>
}

// -----

// A cheap op is recomputed only when what it reads is settled: here the
// sigmoids read a chain's values, and recomputing them into the maximum's
// kernel would make that kernel and the chain read each other's results.
// CHECK-LABEL: func.func @recompute_only_settled
// CHECK:         return
func.func @recompute_only_settled(%a: tensor<16x64xf32>)
    -> (tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>) {
  %two = spectral.constant dense<2.0> : tensor<16x64xf32>
  %e = spectral.exp %a : tensor<16x64xf32>
  %s1 = spectral.sigmoid %e : tensor<16x64xf32>
  // expected-remark-re @below {{consumer 'spectral.reduce_max' ({{.*}}its result is also used by 'spectral.reduce_sum'}}
  // expected-remark-re @below {{consumer 'spectral.reduce_sum' ({{.*}}its result is also used by 'spectral.reduce_max'}}
  %s2 = spectral.sigmoid %s1 : tensor<16x64xf32>
  // expected-remark-re @below {{consumer 'spectral.sub' ({{.*}}its result's shape differs from the anchor's}}
  %mx = spectral.reduce_max %s2 axes [1] keepdims : tensor<16x64xf32>
  %sm = spectral.reduce_sum %s2 axes [1] keepdims : tensor<16x64xf32>
  // expected-remark-re @below {{consumer 'spectral.sub' ({{.*}}it also reads a value computed from the chain's own results}}
  %t = spectral.mul %e, %two : tensor<16x64xf32>, tensor<16x64xf32>
  %y = spectral.sub %t, %mx : tensor<16x64xf32>, tensor<16x1xf32>
  return %mx, %y, %sm : tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>
}

// -----

// Rule 3: the store of a 2-D rfft of one image per block takes the mode
// truncation after it (slices and concats that keep each element in its
// image); an op moving elements across images is left out.
// CHECK-LABEL: func.func @rfft2_corners
// CHECK:         %[[R:.*]]:2 = spectral.fusion %{{.*}} : (tensor<2x3x16x16xf32>) -> (tensor<2x3x4x4xcomplex<f32>>, tensor<2x3x8x4xcomplex<f32>>) {
// CHECK:           spectral.rfft
// CHECK-NEXT:      spectral.slice
// CHECK-NEXT:      spectral.slice
// CHECK-NEXT:      spectral.concat
// CHECK-NEXT:      spectral.yield
// CHECK:         spectral.transpose %[[R]]#0
func.func @rfft2_corners(%x: tensor<2x3x16x16xf32>)
    -> (tensor<2x3x8x4xcomplex<f32>>, tensor<3x2x4x4xcomplex<f32>>) {
  %s = spectral.rfft %x axes [2, 3] : tensor<2x3x16x16xf32>
  // expected-remark-re @below {{consumer 'spectral.transpose' ({{.*}}its result does not keep the spectrum's images}}
  %lo = spectral.slice %s start [0, 0, 0, 0] limit [2, 3, 4, 4] : tensor<2x3x16x9xcomplex<f32>>
  %hi = spectral.slice %s start [0, 0, 12, 0] limit [2, 3, 16, 4] : tensor<2x3x16x9xcomplex<f32>>
  %c = spectral.concat %lo, %hi axis 2 : tensor<2x3x4x4xcomplex<f32>>, tensor<2x3x4x4xcomplex<f32>>
  %t = spectral.transpose %lo perm [1, 0, 2, 3] : tensor<2x3x4x4xcomplex<f32>>
  return %c, %t : tensor<2x3x8x4xcomplex<f32>>, tensor<3x2x4x4xcomplex<f32>>
}

// -----

// A row program: a row reduction, later row reductions of the same rows and
// the pointwise ops on rows or on one value per row between and after them
// (layer norm) are one region; a reduction over another axis is not.
// CHECK-LABEL: func.func @layer_norm
// CHECK:         %[[N:.*]] = spectral.fusion
// CHECK-COUNT-2:   spectral.reduce_mean %{{.*}} axes [1] keepdims
// CHECK:           spectral.yield
// CHECK:         spectral.reduce_sum %[[N]] axes [0]
func.func @layer_norm(%x: tensor<4x32xf32>, %g: tensor<32xf32>) -> tensor<32xf32> {
  %mean = spectral.reduce_mean %x axes [1] keepdims : tensor<4x32xf32>
  %d = spectral.sub %x, %mean : tensor<4x32xf32>, tensor<4x1xf32>
  %sq = spectral.mul %d, %d : tensor<4x32xf32>, tensor<4x32xf32>
  %var = spectral.reduce_mean %sq axes [1] keepdims : tensor<4x32xf32>
  %std = spectral.sqrt %var : tensor<4x1xf32>
  %n = spectral.div %d, %std : tensor<4x32xf32>, tensor<4x1xf32>
  // expected-remark-re @below {{consumer 'spectral.reduce_sum' ({{.*}}it is in the row program of 'spectral.reduce_mean'}}
  %o = spectral.mul %n, %g : tensor<4x32xf32>, tensor<32xf32>
  %col = spectral.reduce_sum %o axes [0] : tensor<4x32xf32>
  return %col : tensor<32xf32>
}

// -----

// A low-pass filter: the rfft2's store keeps the low modes; the zero padding
// back goes to the irfft2's load, which pads without writing the zeros.
// CHECK-LABEL: func.func @low_pass_2d
// CHECK:         %[[K:.*]] = spectral.fusion %{{.*}} : (tensor<2x16x16xf32>) -> tensor<2x16x4xcomplex<f32>> {
// CHECK:           spectral.rfft
// CHECK-NEXT:      spectral.slice
// CHECK-NEXT:      spectral.yield
// CHECK:         spectral.fusion %[[K]] : (tensor<2x16x4xcomplex<f32>>) -> tensor<2x16x16xf32> {
// CHECK:           spectral.pad
// CHECK-NEXT:      spectral.irfft
func.func @low_pass_2d(%x: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %s = spectral.rfft %x axes [1, 2] : tensor<2x16x16xf32>
  // expected-remark-re @below {{consumer 'spectral.pad' ({{.*}}it pads what the store keeps}}
  %lo = spectral.slice %s start [0, 0, 0] limit [2, 16, 4] : tensor<2x16x9xcomplex<f32>>
  %p = spectral.pad %lo low [0, 0, 0] high [0, 0, 5] : tensor<2x16x4xcomplex<f32>>
  %y = spectral.irfft %p axes [1, 2] length 16 : tensor<2x16x9xcomplex<f32>>
  return %y : tensor<2x16x16xf32>
}

// -----

// Rule 3 with top-k: a complex fft of one image per block takes the top-k of
// each image's modes (through the reshape flattening the image) into its
// store; a scatter read (through a reshape) by an ifft of one image per
// block takes the ifft, and the ifft's store goes on (the real part). The
// values' scaling joins the scatter's load.
// CHECK-LABEL: func.func @sparse_filter
// CHECK:         %[[K:.*]]:2 = spectral.fusion %{{.*}} : (tensor<3x16x32xf32>) -> (tensor<3x24xcomplex<f32>>, tensor<3x24xi64>) {
// CHECK:           spectral.cast
// CHECK-NEXT:      spectral.fft
// CHECK-NEXT:      spectral.reshape
// CHECK-NEXT:      spectral.topk_modes
// CHECK-NEXT:      spectral.yield
// CHECK:         spectral.fusion %[[K]]#0, %{{.*}}, %[[K]]#1 : {{.*}} -> tensor<3x16x32xf32> {
// CHECK:           spectral.mul
// CHECK-NEXT:      spectral.scatter
// CHECK-NEXT:      spectral.reshape
// CHECK-NEXT:      spectral.ifft
// CHECK-NEXT:      spectral.real
// CHECK-NEXT:      spectral.yield
func.func @sparse_filter(%x: tensor<3x16x32xf32>, %g: tensor<3x24xcomplex<f32>>)
    -> (tensor<3x16x32xf32>, tensor<3x24xi64>) {
  %c = spectral.cast %x : tensor<3x16x32xf32> to tensor<3x16x32xcomplex<f32>>
  %s = spectral.fft %c axes [1, 2] norm ortho : tensor<3x16x32xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<3x16x32xcomplex<f32>> -> tensor<3x512xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.mul' ({{.*}}'spectral.topk_modes' ({{.*}}) takes no fused stores}}
  // expected-remark-re @below {{consumer 'spectral.scatter' ({{.*}}'spectral.topk_modes' ({{.*}}) takes no fused stores}}
  %v, %i = spectral.topk_modes %rows k 24 : tensor<3x512xcomplex<f32>>
  %m = spectral.mul %v, %g : tensor<3x24xcomplex<f32>>, tensor<3x24xcomplex<f32>>
  %d = spectral.scatter %m, %i : tensor<3x24xcomplex<f32>>, tensor<3x24xi64> -> tensor<3x512xcomplex<f32>>
  %grid = spectral.reshape %d : tensor<3x512xcomplex<f32>> -> tensor<3x16x32xcomplex<f32>>
  %b = spectral.ifft %grid axes [1, 2] norm ortho : tensor<3x16x32xcomplex<f32>>
  %y = spectral.real %b : tensor<3x16x32xcomplex<f32>>
  return %y, %i : tensor<3x16x32xf32>, tensor<3x24xi64>
}

// -----

// Along one axis the image is a row (H = 1) and no reshape is needed.
// CHECK-LABEL: func.func @topk_of_rows
// CHECK:         spectral.fusion
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      spectral.fft
// CHECK-NEXT:      spectral.topk_modes
// CHECK-NEXT:      spectral.yield
func.func @topk_of_rows(%x: tensor<8x64xcomplex<f32>>) -> (tensor<8x4xcomplex<f32>>, tensor<8x4xi64>) {
  %s = spectral.fft %x axes [1] : tensor<8x64xcomplex<f32>>
  %v, %i = spectral.topk_modes %s k 4 : tensor<8x64xcomplex<f32>>
  return %v, %i : tensor<8x4xcomplex<f32>>, tensor<8x4xi64>
}

// -----

// A gather of each image's modes at given indices joins the fft's store the
// same way; what reads the gathered values stays apart.
// CHECK-LABEL: func.func @gather_modes
// CHECK:         %[[G:.*]] = spectral.fusion %{{.*}}, %{{.*}} : (tensor<2x4x8xcomplex<f32>>, tensor<2x3xi64>) -> tensor<2x3xcomplex<f32>> {
// CHECK:           spectral.fft
// CHECK-NEXT:      spectral.reshape
// CHECK-NEXT:      spectral.gather
// CHECK-NEXT:      spectral.yield
// CHECK:         spectral.abs %[[G]]
func.func @gather_modes(%x: tensor<2x4x8xcomplex<f32>>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %s = spectral.fft %x axes [1, 2] : tensor<2x4x8xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<2x4x8xcomplex<f32>> -> tensor<2x32xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.abs' ({{.*}}'spectral.gather' ({{.*}}) takes no fused stores}}
  %g = spectral.gather %rows[%i] : tensor<2x32xcomplex<f32>>, tensor<2x3xi64>
  %m = spectral.abs %g : tensor<2x3xcomplex<f32>>
  return %m : tensor<2x3xf32>
}

// -----

// Not folded, and the remarks say why: a flat top-k over two images, and an
// image too large for one block.
// CHECK-LABEL: func.func @sparse_refused
// CHECK-NEXT:    spectral.fft
// CHECK-NEXT:    spectral.topk_modes
// CHECK-NEXT:    spectral.fft
// CHECK-NEXT:    spectral.fusion
// CHECK-NOT:       spectral.fft
// CHECK:         spectral.scatter
// CHECK-NEXT:    spectral.fusion
func.func @sparse_refused(%x: tensor<2x8x8xcomplex<f32>>, %big: tensor<128x128xcomplex<f32>>)
    -> (tensor<6xcomplex<f32>>, tensor<128x128xcomplex<f32>>) {
  // expected-remark-re @below {{consumer 'spectral.topk_modes' ({{.*}}its modes are not picked in the transform's store: its rows (128 modes) are not the transform's images (8 x 8)}}
  %s = spectral.fft %x axes [1, 2] : tensor<2x8x8xcomplex<f32>>
  %v, %i = spectral.topk_modes %s k 6 flat : tensor<2x8x8xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.reshape' ({{.*}}its modes are not picked in the transform's store: an image of 128 x 128 does not fit one block's shared memory (44 KiB)}}
  %t = spectral.fft %big axes [0, 1] : tensor<128x128xcomplex<f32>>
  %flat = spectral.reshape %t : tensor<128x128xcomplex<f32>> -> tensor<16384xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.scatter' ({{.*}}takes no fused stores}}
  %w, %j = spectral.topk_modes %flat k 6 : tensor<16384xcomplex<f32>>
  // expected-remark-re @below {{consumer 'spectral.reshape' ({{.*}}the scatter is not built in the inverse's load: an image of 128 x 128 does not fit one block's shared memory (44 KiB)}}
  %d = spectral.scatter %w, %j : tensor<6xcomplex<f32>>, tensor<6xi64> -> tensor<16384xcomplex<f32>>
  %grid = spectral.reshape %d : tensor<16384xcomplex<f32>> -> tensor<128x128xcomplex<f32>>
  %b = spectral.ifft %grid axes [0, 1] : tensor<128x128xcomplex<f32>>
  return %v, %b : tensor<6xcomplex<f32>>, tensor<128x128xcomplex<f32>>
}
