//===- FormFusionGroups.cpp - ops into spectral.fusion regions ------------===//
//
// spectral-fuse: the top-level ops of a func become spectral.fusion regions
// of the shapes codegen compiles as one kernel (compiler/Codegen/FusedRegion.h),
// in the spirit of TVM's partitioner, greedily and in program order:
//
//  0. With block-programs, connected small work (reductions, softmax,
//     losses and the elementwise ops around them, OpKinds.h
//     blockProgramWork) becomes one region first: one kernel of one block.
//     Block programs that read one tensor share a kernel while their work
//     fits (horizontal fusion), with at most one op that reports an error.
//  1. Around each anchor (OpKinds.h), its store takes the pointwise ops that
//     read its result, or a value the store already computes, at the
//     element being stored (same shape, no broadcast of those values, none
//     that can fail at run time). The store of an fft or rfft along one
//     axis that reaches the transform's inverse takes the inverse too (a
//     round trip: the ops between filter the spectrum in shared memory),
//     and goes on from the inverse's result. An rfft whose low modes go
//     through one channel_mix back to an irfft (a 1-D FNO spectral
//     convolution, OpKinds.h) takes that whole chain the same way. The
//     store of a 2-D rfft of one image per block also takes the slices and
//     concats that keep each element in its image (mode truncation: only
//     the kept modes are written; a padding is left to the consumer's load).
//     Likewise a complex fft of one image per block takes the top-k or the
//     gather of each image's modes (through a reshape flattening the image)
//     into its store,
//     and a scatter read by an ifft of one image per block takes that ifft,
//     the dense spectrum built in its load (OpKinds.h SparseImageTransform).
//     A row reduction (over the last axis, keepdims) starts a row program
//     instead when later row reductions of the same rows, and pointwise ops
//     on rows or on one value per row, read what it computes (layer norm):
//     one kernel per row computes them all, the row held in shared memory.
//  2. Its loads take the elementwise ops whose every use is in the group
//     (walking back from the group's last op), so a value computed once
//     and used elsewhere is never recomputed in a load.
//  3. Elementwise ops left over form chains: each op with the later ones
//     that read the chain's values, one kernel per chain.
//
// An op joins a group only when no path leads from the group through an op
// outside it back into the group (the region would depend on itself). A
// group of one op stays an op (codegen makes it a region of its own), as
// does a chain of reshapes (views, no kernel). Splat constants are cloned
// into each region that reads them (literals); other constants, and values
// from outside, are the region's inputs; values used outside are yielded.
// The block is then sorted topologically: a region sits where its last op
// was, and an op it reads that came later in program order moves before it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Fusion/OpKinds.h"
#include "compiler/Fusion/Passes.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <map>

#define DEBUG_TYPE "spectral-fuse"

namespace spectral {
#define GEN_PASS_DEF_FORMFUSIONGROUPS
#include "compiler/Fusion/Passes.h.inc"
} // namespace spectral

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral {
namespace {

using fusion::OpKind;

/// "'spectral.fft' (x.mlir:4:8)": how remarks name an op.
std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    text += " (" + file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn()) + ")";
  return text;
}

std::string anchorsItsOwnKernel(Operation *op) {
  return describe(op) +
         " anchors a kernel of its own (a kernel computes one transform, reduction or contraction)";
}

llvm::ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

struct Group {
  llvm::SetVector<Operation *> ops;  // in the order they joined
  Operation *anchor = nullptr;
  /// Ops of `ops` the region recomputes from their operands while the
  /// original stays for its other users (neither yielded nor erased here).
  llvm::SmallPtrSet<Operation *, 4> recomputed;
  bool rowProgram = false;    // row reductions in sequence (formRowGroup)
  bool blockProgram = false;  // small work in one block (formBlockPrograms)
  int64_t work = 0;           // a block program's element operations
};

/// Bytes of a value's tensor.
int64_t bytesOf(Value value) {
  auto type = cast<ShapedType>(value.getType());
  Type element = type.getElementType();
  int64_t width = isa<ComplexType>(element)
                      ? 2 * cast<ComplexType>(element).getElementType().getIntOrFloatBitWidth()
                      : element.getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, width / 8);
}

/// Whether computing `op` again where another kernel needs it moves fewer
/// bytes than writing its result once and reading it back: a pointwise op
/// whose operands (splat constants aside) are at most a quarter larger than
/// its result (x - mean(x) reads x and a column of means instead of the
/// difference), so that even a few readers recomputing it move less.
bool cheapToRecompute(Operation *op) {
  if (fusion::kindOf(op) != OpKind::kPointwise || op->getNumResults() != 1 ||
      !fusion::failureOf(op).empty())
    return false;
  int64_t operands = 0;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp(); !def || !fusion::isSplatConstant(def))
      operands += bytesOf(operand);
  return 4 * operands <= 5 * bytesOf(op->getResult(0));
}

class Grouping {
public:
  explicit Grouping(Block &block) : block_(block) {}

  /// Optimizer steps that can share a launch (OpKinds.h) become one group:
  /// the updates of all parameters in one kernel.
  void formStepGroups() {
    for (Operation &first : block_.without_terminator()) {
      if (groupOf_.count(&first) || !isa<sp::SgdStepOp, sp::AdamStepOp>(first)) continue;
      Group group;
      group.ops.insert(&first);
      for (Operation *op = first.getNextNode(); op; op = op->getNextNode())
        if (!groupOf_.count(op) && fusion::shareAnOptimizerLaunch(&first, op) &&
            !closesACycle(group.ops, op))
          group.ops.insert(op);
      if (group.ops.size() < 2) continue;
      int id = int(groups_.size());
      group.anchor = &first;
      for (Operation *op : group.ops) groupOf_[op] = id;
      groups_.push_back(std::move(group));
    }
  }

  /// Connected small work in one kernel of one block: from each op a block
  /// program runs (fusion::blockProgramWork), the later ops that read the
  /// group's values, then (walking back) the ops whose every use is in the
  /// group, while the work stays within kMaxBlockProgramWork. Kept when it
  /// holds two ops or more that would each be a kernel (reductions,
  /// softmax, losses); a group of elementwise ops is better spread over
  /// many blocks.
  void formBlockPrograms() {
    for (Operation &first : block_.without_terminator()) {
      if (groupOf_.count(&first) || fusion::kindOf(&first) == OpKind::kConstant ||
          fusion::blockProgramWork(&first) < 0 || readsALargerAnchor(&first))
        continue;
      int id = int(groups_.size());
      Group group;
      group.blockProgram = true;
      int64_t work = fusion::blockProgramWork(&first);
      join(group, id, &first);
      auto fits = [&](Operation *op) {
        int64_t more = fusion::blockProgramWork(op);
        return !groupOf_.count(op) && more >= 0 && work + more <= fusion::kMaxBlockProgramWork &&
               fusion::kindOf(op) != OpKind::kConstant && !readsALargerAnchor(op) &&
               !(fusion::reportsFromABlockProgram(op) && reports(group)) &&
               !closesACycle(group.ops, op);
      };
      for (Operation *op = first.getNextNode(); op; op = op->getNextNode()) {
        if (op->hasTrait<OpTrait::IsTerminator>()) break;
        bool reads = llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && group.ops.contains(def);
        });
        if (!reads || !fits(op)) continue;
        work += fusion::blockProgramWork(op);
        join(group, id, op);
      }
      Operation *last = &first;
      for (Operation *op : group.ops)
        if (last->isBeforeInBlock(op)) last = op;
      for (Operation *op = last->getPrevNode(); op; op = op->getPrevNode()) {
        if (op->use_empty() || !fits(op) ||
            llvm::any_of(op->getUsers(), [&](Operation *u) { return !group.ops.contains(u); }))
          continue;
        work += fusion::blockProgramWork(op);
        join(group, id, op);
      }
      int kernels = llvm::count_if(group.ops, [](Operation *op) {
        return fusion::kindOf(op) == OpKind::kAnchor;
      });
      // An elementwise value used outside is written once per element.
      for (Operation *op : group.ops)
        if (fusion::isElementwise(op) &&
            llvm::any_of(op->getUsers(), [&](Operation *u) { return !group.ops.contains(u); }))
          work += cast<ShapedType>(op->getResult(0).getType()).getNumElements();
      if (kernels < 2 || work > fusion::kMaxBlockProgramWork) {
        for (Operation *op : group.ops) groupOf_.erase(op);
        continue;
      }
      group.anchor = &first;
      group.work = work;
      if (!joinASibling(group)) groups_.push_back(std::move(group));
    }
  }

  /// Whether `group` holds an op that reports a run-time error (a block
  /// program holds at most one).
  static bool reports(const Group &group) {
    return llvm::any_of(group.ops, fusion::reportsFromABlockProgram);
  }

  /// Horizontal fusion: a block program that reads a tensor an earlier one
  /// reads too joins it while the work fits and no path leads from one
  /// through an op outside into the other: the tensor is read once, by one
  /// launch (PureFFT's pattern pool, read by every layer's selection in the
  /// forward and the backward pass). Returns whether `group` joined one.
  bool joinASibling(const Group &group) {
    llvm::DenseSet<Value> reads;
    for (Operation *op : group.ops)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp(); !def || !group.ops.contains(def))
          if (!def || !fusion::isSplatConstant(def)) reads.insert(operand);
    for (size_t g = 0; g < groups_.size(); ++g) {
      Group &sibling = groups_[g];
      if (!sibling.blockProgram || sibling.work + group.work > fusion::kMaxBlockProgramWork ||
          (reports(sibling) && reports(group)))
        continue;
      bool shares = llvm::any_of(sibling.ops, [&](Operation *op) {
        return llvm::any_of(op->getOperands(), [&](Value v) { return reads.contains(v); });
      });
      if (!shares) continue;
      llvm::SetVector<Operation *> members = sibling.ops;
      members.insert(group.ops.begin(), group.ops.end());
      if (closesACycle(members, nullptr)) continue;
      for (Operation *op : group.ops) {
        sibling.ops.insert(op);
        groupOf_[op] = int(g);
      }
      sibling.work += group.work;
      return true;
    }
    return false;
  }

  /// Whether elementwise `op` reads the result of an anchor a block program
  /// does not run (a transform, a contraction) whose store can compute it:
  /// it is left to that store (an FNet block's residual after its FFT).
  static bool readsALargerAnchor(Operation *op) {
    if (!fusion::isElementwise(op)) return false;
    return llvm::any_of(op->getOperands(), [](Value v) {
      Operation *def = v.getDefiningOp();
      return def && fusion::kindOf(def) == OpKind::kAnchor && fusion::blockProgramWork(def) < 0 &&
             fusion::takesFusedStore(def);
    });
  }

  void formAnchorGroups() {
    for (Operation &op : block_.without_terminator())
      if (fusion::kindOf(&op) == OpKind::kAnchor && !groupOf_.count(&op) && !formRowGroup(&op))
        formAroundAnchor(&op);
  }

  void formElementwiseChains() {
    for (Operation &op : block_.without_terminator())
      if (fusion::isElementwise(&op) && !groupOf_.count(&op)) formChain(&op);
  }

  /// A remark at each producer of a pair that ends in different kernels.
  void remarkUnfusedPairs() {
    for (Operation &consumer : block_.without_terminator()) {
      for (Value operand : consumer.getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || producer->getBlock() != &block_ ||
            fusion::kindOf(producer) == OpKind::kConstant || sameGroup(producer, &consumer) ||
            recomputedFor(producer, &consumer))
          continue;
        producer->emitRemark() << "not fused with its consumer " << describe(&consumer) << ": "
                               << reason(producer, &consumer);
      }
    }
  }

  void materialize() {
    bool moved = false;
    // Regions that recompute an op clone it before any other region takes
    // the original; an original left without users goes at the end.
    for (Group &group : groups_)
      if (!group.recomputed.empty()) moved |= materialize(group);
    for (Group &group : groups_)
      if (group.recomputed.empty()) moved |= materialize(group);
    // Originals nothing reads any more go, users before producers (one that
    // joined a region of its own went with it).
    llvm::SetVector<Operation *> originals;
    for (Group &group : groups_)
      for (Operation *op : group.recomputed)
        if (!erased_.contains(op)) originals.insert(op);
    llvm::SmallVector<Operation *> last(originals.begin(), originals.end());
    llvm::sort(last, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
    for (Operation *op : last)
      if (op->use_empty()) op->erase();
    if (moved) sortTopologically(&block_);
  }

private:
  int groupOf(Operation *op) const {
    auto found = groupOf_.find(op);
    return found == groupOf_.end() ? -1 : found->second;
  }
  bool sameGroup(Operation *a, Operation *b) const {
    int g = groupOf(a);
    return g >= 0 && g == groupOf(b);
  }
  /// Whether the group of `consumer` recomputes `producer`.
  bool recomputedFor(Operation *producer, Operation *consumer) const {
    int g = groupOf(consumer);
    return g >= 0 && groups_[g].recomputed.contains(producer);
  }

  /// The ops that read `op`'s results once the regions exist: a group that
  /// recomputes `op` reads `op`'s operands instead, so its users of `op`
  /// become users of the ops `op` reads.
  llvm::SmallVector<Operation *> usersOf(Operation *op) const {
    llvm::SmallVector<Operation *> users;
    auto recomputes = [&](Operation *user, Operation *original) {
      auto found = recomputedBy_.find(original);
      return found != recomputedBy_.end() && llvm::is_contained(found->second, groupOf(user));
    };
    for (Operation *user : op->getUsers()) {
      if (user->getBlock() != &block_ || recomputes(user, op)) continue;
      users.push_back(user);
      if (recomputedBy_.count(user))
        for (Operation *next : user->getUsers())
          if (next->getBlock() == &block_ && recomputes(next, user)) users.push_back(next);
    }
    return users;
  }

  /// Whether adding `candidate` (if any) to `members` makes a path leave
  /// the group and come back (the region would read what it computes).
  bool closesACycle(const llvm::SetVector<Operation *> &members, Operation *candidate) const {
    auto inside = [&](Operation *op) { return op == candidate || members.contains(op); };
    llvm::SmallVector<Operation *> work;
    llvm::DenseSet<Operation *> seen;
    auto pushUsersOf = [&](Operation *op) {
      for (Operation *user : usersOf(op))
        if (!inside(user) && seen.insert(user).second) work.push_back(user);
    };
    for (Operation *op : members) pushUsersOf(op);
    if (candidate) pushUsersOf(candidate);
    llvm::DenseSet<int> groupsSeen;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      llvm::SmallVector<Operation *> next = usersOf(op);
      // A formed group is one kernel: what any member reads, all its
      // results wait for.
      int g = groupOf(op);
      if (g >= 0 && size_t(g) < groups_.size() && groupsSeen.insert(g).second)
        for (Operation *member : groups_[g].ops)
          if (!groups_[g].recomputed.contains(member)) llvm::append_range(next, usersOf(member));
      for (Operation *user : next) {
        if (inside(user)) return true;
        if (seen.insert(user).second) work.push_back(user);
      }
    }
    return false;
  }

  void join(Group &group, int id, Operation *op) {
    group.ops.insert(op);
    groupOf_[op] = id;
  }

  void refuse(Operation *producer, Operation *consumer, const std::string &why) {
    // The first reason, the most specific one, stays.
    if (producer && producer->getBlock() == &block_) reasons_.try_emplace({producer, consumer}, why);
  }

  /// Why the store of `anchor` cannot compute `op`, which reads `atIndex`
  /// values; empty when it can.
  std::string storeRefusal(Operation *anchor, Operation *op,
                           const llvm::DenseSet<Value> &atIndex) const {
    OpKind kind = fusion::kindOf(op);
    if (kind == OpKind::kAnchor) return anchorsItsOwnKernel(op);
    if (kind == OpKind::kOpaque) return describe(op) + " takes no fused loads";
    if (kind == OpKind::kIndexMap)
      return "it moves elements, so it would read the anchor's result at another element than "
             "the one being stored";
    std::string failure = fusion::failureOf(op);
    if (!failure.empty())
      return "it can fail at run time (" + failure + "), which a fused store cannot report";
    Value result = op->getResult(0);
    if (shapeOf(result) != shapeOf(anchor->getResult(0)))
      return "its result's shape differs from the anchor's";
    for (Value operand : op->getOperands())
      if (atIndex.contains(operand) && shapeOf(operand) != shapeOf(result))
        return "it broadcasts a value the store computes";
    return "";
  }

  /// Why the store of a 2-D rfft in one block (`anchor`) cannot compute
  /// `op`, which reads `atIndex` values; empty when it can.
  std::string imageStoreRefusal(Operation *anchor, Operation *op,
                                const llvm::DenseSet<Value> &atIndex) const {
    OpKind kind = fusion::kindOf(op);
    if (kind == OpKind::kAnchor) return anchorsItsOwnKernel(op);
    if (kind == OpKind::kOpaque) return describe(op) + " takes no fused loads";
    std::string failure = fusion::failureOf(op);
    if (!failure.empty())
      return "it can fail at run time (" + failure + "), which a fused store cannot report";
    return fusion::imageStoreRefusal(op, shapeOf(anchor->getResult(0)),
                                     [&](Value value) { return atIndex.contains(value); });
  }

  /// Why `inverse`, an anchor reading values the store of `group`'s anchor
  /// computes (`atIndex`), cannot join it as the inverse of a round trip
  /// (rule 4: transform, pointwise filter, inverse in one kernel).
  std::string inverseRefusal(const Group &group, Operation *inverse,
                             const llvm::DenseSet<Value> &atIndex) const {
    if (!isa<sp::FftOp, sp::RfftOp>(group.anchor) || !isa<sp::IfftOp, sp::IrfftOp>(inverse))
      return anchorsItsOwnKernel(inverse);
    std::string why = fusion::roundTripRefusal(group.anchor, inverse);
    if (!why.empty()) return why;
    if (!atIndex.contains(inverse->getOperand(0)))
      return "the inverse does not read the filtered spectrum";
    for (Value value : atIndex)
      for (Operation *user : value.getUsers())
        if (user != inverse && !group.ops.contains(user))
          return "the spectrum or a value filtered from it is also used by " + describe(user) +
                 ", outside the kernel";
    if (closesACycle(group.ops, inverse))
      return "it also reads a value computed from the group's own results";
    return "";
  }

  void formAroundAnchor(Operation *anchor) {
    int id = int(groups_.size());
    Group group;
    group.anchor = anchor;
    join(group, id, anchor);
    llvm::DenseSet<Value> atIndex;  // the values the store computes at its element
    if (anchor->getNumResults() == 1 && fusion::takesFusedStore(anchor))
      atIndex.insert(anchor->getResult(0));
    Operation *inverse = nullptr;   // a transform's inverse joined as its round trip
    fusion::SpectralConv conv;
    std::string convRefusal = isa<sp::RfftOp>(anchor) ? fusion::spectralConvRefusal(anchor, &conv)
                                                       : "";
    auto onlyUser = [](Value value) -> Operation * {
      return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
    };
    // A chain that looks like a spectral convolution: say why it is not one.
    if (Operation *slice = isa<sp::RfftOp>(anchor) ? onlyUser(anchor->getResult(0)) : nullptr;
        !convRefusal.empty() && slice && isa<sp::SliceOp>(slice) &&
        isa_and_nonnull<sp::ChannelMixOp>(onlyUser(slice->getResult(0))))
      refuse(anchor, slice, "not a spectral convolution of one kernel: " + convRefusal);
    if (isa<sp::RfftOp>(anchor) && convRefusal.empty()) {
      // The whole spectral convolution: the modes never leave shared memory.
      for (Operation *op : {conv.slice, conv.mix, conv.pad, conv.irfft}) join(group, id, op);
      inverse = conv.irfft;
      atIndex = {conv.irfft->getResult(0)};
    }
    // A complex transform of one image per block whose modes a top-k ranks
    // or a gather picks keeps its spectrum in shared memory: only the k
    // modes are written.
    // A scatter that an inverse of one image per block reads is built in
    // that inverse's load, and its store goes on from the inverse's result.
    fusion::SparseImageTransform sparse;
    std::string sparseRefusal = isa<sp::FftOp>(anchor)       ? fusion::sparseStoreRefusal(anchor, &sparse)
                                : isa<sp::ScatterOp>(anchor) ? fusion::scatterLoadRefusal(anchor, &sparse)
                                                             : "not a sparse transform";
    if (sparseRefusal.empty()) {
      if (sparse.reshape) join(group, id, sparse.reshape);
      if (isa<sp::FftOp>(anchor)) {
        join(group, id, sparse.sparse);
        atIndex.clear();  // what it picks is written as it is
      } else {
        join(group, id, sparse.transform);
        inverse = sparse.transform;
        atIndex = {inverse->getResult(0)};
      }
    } else if (isa<sp::FftOp>(anchor) && sparse.sparse) {
      refuse(anchor, sparse.reshape ? sparse.reshape : sparse.sparse,
             "its modes are not picked in the transform's store: " + sparseRefusal);
    } else if (isa<sp::ScatterOp>(anchor) && sparse.transform) {
      refuse(anchor, sparse.reshape ? sparse.reshape : sparse.transform,
             "the scatter is not built in the inverse's load: " + sparseRefusal);
    }
    // A 2-D rfft of one image per block keeps its spectrum in shared memory
    // until the store, which may then keep only some of it (mode truncation:
    // slices, corners, concats of them) and compute from what it keeps.
    const bool imageStore =
        !inverse && isa<sp::RfftOp>(anchor) && fusion::realTransform2DRefusal(anchor, nullptr).empty();
    for (Operation *op = anchor->getNextNode(); op && !atIndex.empty(); op = op->getNextNode()) {
      if (groupOf_.count(op) || op->hasTrait<OpTrait::IsTerminator>()) continue;
      llvm::SmallVector<Operation *> readFrom;
      for (Value operand : op->getOperands())
        if (atIndex.contains(operand)) readFrom.push_back(operand.getDefiningOp());
      if (readFrom.empty()) continue;
      if (!inverse && fusion::kindOf(op) == OpKind::kAnchor) {
        std::string why = inverseRefusal(group, op, atIndex);
        if (why.empty()) {
          // The spectrum stays in shared memory; the store now computes
          // from the inverse's result.
          join(group, id, op);
          inverse = op;
          atIndex = {op->getResult(0)};
        } else {
          for (Operation *producer : readFrom) refuse(producer, op, why);
        }
        continue;
      }
      std::string why = imageStore ? imageStoreRefusal(anchor, op, atIndex)
                                   : storeRefusal(inverse ? inverse : anchor, op, atIndex);
      if (why.empty() && closesACycle(group.ops, op))
        why = "it also reads a value computed from the group's own results";
      if (!why.empty()) {
        for (Operation *producer : readFrom) refuse(producer, op, why);
        continue;
      }
      join(group, id, op);
      atIndex.insert(op->getResult(0));
    }
    absorbProducers(group, id, atIndex);
    groups_.push_back(std::move(group));
  }

  /// A row program around the row reduction `anchor`: the later row
  /// reductions of the same rows and pointwise ops on rows or on one value
  /// per row that read the group's values (layer norm: mean, centring,
  /// variance, normalisation in one kernel per row). Formed only when it
  /// holds two reductions or more (one is an anchor's own group); returns
  /// whether it did.
  bool formRowGroup(Operation *anchor) {
    if (!fusion::isRowReduction(anchor)) return false;
    llvm::ArrayRef<int64_t> rows = shapeOf(anchor->getOperand(0));
    int id = int(groups_.size());
    Group group;
    group.anchor = anchor;
    group.rowProgram = true;
    join(group, id, anchor);
    int reductions = 1;
    for (Operation *op = anchor->getNextNode(); op; op = op->getNextNode()) {
      if (groupOf_.count(op) || op->hasTrait<OpTrait::IsTerminator>()) continue;
      bool reads = llvm::any_of(op->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && group.ops.contains(def);
      });
      if (!reads || !fusion::rowOpRefusal(op, rows).empty() || closesACycle(group.ops, op))
        continue;
      join(group, id, op);
      reductions += fusion::isRowReduction(op);
    }
    if (reductions < 2) {
      for (Operation *op : group.ops) groupOf_.erase(op);
      return false;
    }
    llvm::DenseSet<Value> computed;
    for (Operation *op : group.ops) computed.insert(op->getResult(0));
    absorbProducers(group, id, computed);
    groups_.push_back(std::move(group));
    return true;
  }

  /// Elementwise ops before the group's last op whose every use is in the
  /// group (not reading values of `downstream`, which the store computes).
  void absorbProducers(Group &group, int id, const llvm::DenseSet<Value> &downstream) {
    Operation *last = group.ops.front();
    for (Operation *op : group.ops)
      if (last->isBeforeInBlock(op)) last = op;
    for (Operation *op = last->getPrevNode(); op; op = op->getPrevNode()) {
      if (groupOf_.count(op) || !fusion::isElementwise(op) || op->use_empty()) continue;
      llvm::SmallVector<Operation *> inGroup;
      Operation *outside = nullptr;
      // A recomputed op's original stays: what it reads stays too.
      for (Operation *user : usersOf(op))
        (group.ops.contains(user) && !group.recomputed.contains(user) ? inGroup.push_back(user)
                                                                       : void(outside = user));
      if (inGroup.empty()) continue;
      // Only when every other reader could compute it too (an elementwise op,
      // an anchor's load): a value returned, or read as it is, is written
      // anyway. One level: an op whose reader here is itself recomputed stays.
      auto couldRecompute = [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (group.recomputed.contains(user)) return false;
        return group.ops.contains(user) || fusion::isElementwise(user) ||
               (fusion::kindOf(user) == OpKind::kAnchor &&
                fusion::readsThroughLoad(user, use.getOperandNumber()));
      };
      // What it reads is already settled (a group's result, an anchor's, an
      // argument), so no later group or chain can take its producers.
      auto settled = [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        return !def || def->getBlock() != &block_ || groupOf_.count(def) ||
               !fusion::isElementwise(def);
      };
      if (outside && cheapToRecompute(op) && llvm::all_of(op->getUses(), couldRecompute) &&
          llvm::all_of(op->getOperands(), settled) && !closesACycle(group.ops, op) &&
          llvm::none_of(op->getOperands(), [&](Value v) { return downstream.contains(v); })) {
        // Computed again in this kernel's loads; the original stays for the rest.
        group.ops.insert(op);
        group.recomputed.insert(op);
        recomputedBy_[op].push_back(id);
        continue;
      }
      std::string why;
      auto readAsIs = [&](OpOperand &use) {
        return group.ops.contains(use.getOwner()) && fusion::kindOf(use.getOwner()) == OpKind::kAnchor &&
               !fusion::readsThroughLoad(use.getOwner(), use.getOperandNumber());
      };
      if (outside)
        why = "its result is also used by " + describe(outside) + ", outside the kernel";
      else if (llvm::any_of(op->getUses(), readAsIs))
        why = "the anchor reads that operand as it is, not through a fused load";
      else if (group.anchor && !fusion::failureOf(op).empty())
        why = "it can fail at run time (" + fusion::failureOf(op) +
              "), which a fused load cannot report";
      else if (llvm::any_of(op->getOperands(), [&](Value v) { return downstream.contains(v); }))
        continue;  // a store op the store refused: its reason is recorded
      else if (closesACycle(group.ops, op))
        why = "it reads a value computed from the group's own results";
      if (!why.empty()) {
        for (Operation *user : inGroup) refuse(op, user, why);
        continue;
      }
      join(group, id, op);
    }
  }

  void formChain(Operation *first) {
    int id = int(groups_.size());
    Group group;
    join(group, id, first);
    for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
      if (groupOf_.count(op) || !fusion::isElementwise(op)) continue;
      llvm::SmallVector<Operation *> readFrom;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp(); def && group.ops.contains(def))
          readFrom.push_back(def);
      if (readFrom.empty()) continue;
      if (closesACycle(group.ops, op)) {
        for (Operation *producer : readFrom)
          refuse(producer, op, "it also reads a value computed from the chain's own results");
        continue;
      }
      join(group, id, op);
    }
    absorbProducers(group, id, {});
    groups_.push_back(std::move(group));
  }

  std::string reason(Operation *producer, Operation *consumer) const {
    auto found = reasons_.find({producer, consumer});
    if (found != reasons_.end()) return found->second;
    OpKind from = fusion::kindOf(producer), to = fusion::kindOf(consumer);
    if (to == OpKind::kOpaque) return describe(consumer) + " takes no fused loads";
    if (from == OpKind::kOpaque || (from == OpKind::kAnchor && !fusion::takesFusedStore(producer)))
      return describe(producer) + " takes no fused stores";
    if (from == OpKind::kAnchor && to == OpKind::kAnchor) return anchorsItsOwnKernel(consumer);
    int g = groupOf(producer);
    if (g >= 0 && groups_[g].blockProgram)
      return "it is in a block program (" + describe(groups_[g].anchor) +
             " and what it reads or feeds), which the consumer would take beyond " +
             std::to_string(fusion::kMaxBlockProgramWork) + " element operations, or does "
             "not run in";
    if (g >= 0 && groups_[g].rowProgram)
      return "it is in the row program of " + describe(groups_[g].anchor) +
             ", whose rows the consumer does not compute";
    if (g >= 0 && groups_[g].anchor && groups_[g].anchor != producer)
      return "it is fused into the store of " + describe(groups_[g].anchor);
    if (g >= 0 && (groupOf(consumer) >= 0 || fusion::kindOf(consumer) == OpKind::kAnchor))
      return "each is fused into another kernel";
    return "no rule fuses them";
  }

  /// Whether `group` is worth a region: two ops or more, not only views.
  static bool worthARegion(const Group &group) {
    if (group.ops.size() < 2) return false;
    return llvm::any_of(group.ops, [](Operation *op) { return !isa<sp::ReshapeOp>(op); });
  }

  /// Replaces the group's ops by one spectral.fusion at its last op; returns
  /// whether it made one.
  bool materialize(const Group &group) {
    if (!worthARegion(group)) return false;
    llvm::SmallVector<Operation *> ops(group.ops.begin(), group.ops.end());
    llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    llvm::SetVector<Value> inputs, outputs;
    llvm::SetVector<Operation *> splats;
    for (Operation *op : ops) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && group.ops.contains(def)) continue;
        if (def && fusion::isSplatConstant(def)) splats.insert(def);
        else inputs.insert(operand);
      }
      if (group.recomputed.contains(op)) continue;  // the original serves the rest
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *u) { return !group.ops.contains(u); }))
          outputs.insert(result);
    }
    if (outputs.empty()) return false;  // nothing is used: left for dead-code elimination

    OpBuilder builder(ops.back());
    builder.setInsertionPointAfter(ops.back());
    llvm::SmallVector<Location> locations;
    for (Operation *op : ops) locations.push_back(op->getLoc());
    llvm::SmallVector<Type> resultTypes;
    for (Value output : outputs) resultTypes.push_back(output.getType());
    auto region = builder.create<sp::FusionOp>(builder.getFusedLoc(locations), resultTypes,
                                               inputs.getArrayRef());
    Block *body = builder.createBlock(&region.getRegion());
    IRMapping mapping;
    for (Value input : inputs) mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
    for (Operation *splat : splats) builder.clone(*splat, mapping);
    for (Operation *op : ops) builder.clone(*op, mapping);
    llvm::SmallVector<Value> yielded;
    for (Value output : outputs) yielded.push_back(mapping.lookup(output));
    builder.create<sp::YieldOp>(region.getLoc(), yielded);

    for (auto [output, result] : llvm::zip(outputs, region.getResults()))
      Value(output).replaceUsesWithIf(result, [&](OpOperand &use) {
        return !group.ops.contains(use.getOwner());
      });
    for (Operation *op : llvm::reverse(ops)) {
      if (group.recomputed.contains(op)) continue;
      erased_.insert(op);
      op->erase();
    }
    for (Operation *splat : splats)
      if (splat->use_empty()) splat->erase();
    return true;
  }

  Block &block_;
  std::vector<Group> groups_;
  llvm::DenseMap<Operation *, int> groupOf_;
  std::map<std::pair<Operation *, Operation *>, std::string> reasons_;
  llvm::DenseMap<Operation *, llvm::SmallVector<int>> recomputedBy_;  // op -> groups
  llvm::DenseSet<Operation *> erased_;  // by materialize
};

struct FormFusionGroups : impl::FormFusionGroupsBase<FormFusionGroups> {
  using FormFusionGroupsBase::FormFusionGroupsBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal()) return;
    for (Block &block : function.getBody()) {
      Grouping grouping(block);
      if (blockPrograms) grouping.formBlockPrograms();
      grouping.formStepGroups();
      grouping.formAnchorGroups();
      grouping.formElementwiseChains();
      if (remarks) grouping.remarkUnfusedPairs();
      grouping.materialize();
    }
  }
};

} // namespace
} // namespace spectral
