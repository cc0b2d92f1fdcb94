#include "passes/batch_norm_expander.h"

#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "semantics/scalar_semantics.h"

namespace mxla {
namespace {

class Expander {
 public:
  Expander(HloComputation& computation, HloInstruction* norm,
           expansion::AddComputations& adders)
      : computation_(computation),
        norm_(norm),
        adders_(adders),
        type_(norm->operand(0)->shape().element_type()),
        compute_(primitive_util::ComputeType(type_)),
        feature_(norm->feature_index()) {
    const Shape& shape = norm->operand(0)->shape();
    dims_.assign(shape.dimensions().begin(), shape.dimensions().end());
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (d != feature_) reduced_.push_back(d);
    }
    features_ = dims_[feature_];
  }

  HloInstruction* Expand();

 private:
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    return computation_.AddInstruction(std::move(instruction));
  }
  Shape Whole() const { return ShapeUtil::MakeShape(compute_, dims_); }
  Shape PerFeature() const { return ShapeUtil::MakeShape(compute_, {features_}); }
  HloInstruction* Operand(int64_t i) {
    HloInstruction* x = norm_->mutable_operand(i);
    if (x->shape().element_type() == compute_) return x;
    return Add(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(x->shape(), compute_), x));
  }
  HloInstruction* Binary(HloOpcode opcode, HloInstruction* x,
                         HloInstruction* y) {
    return Add(HloInstruction::CreateBinary(x->shape(), opcode, x, y));
  }
  // A per-feature vector along the feature dimension of the operand.
  HloInstruction* Spread(HloInstruction* per_feature) {
    return Add(HloInstruction::CreateBroadcast(Whole(), per_feature,
                                               {feature_}));
  }
  // A scalar of the compute type, one per feature.
  HloInstruction* PerFeatureConstant(double value) {
    Literal scalar(ShapeUtil::MakeShape(F64, {}));
    scalar.data<double>()[0] = value;
    HloInstruction* constant = Add(HloInstruction::CreateConstant(
        semantics::ApplyConvert(scalar, compute_).value()));
    return Add(HloInstruction::CreateBroadcast(PerFeature(), constant, {}));
  }
  HloInstruction* Sum(HloInstruction* x) {
    HloInstruction* zero = expansion::Zero(computation_, compute_);
    return Add(HloInstruction::CreateReduce(PerFeature(), {x, zero}, reduced_,
                                            adders_.Get(compute_)));
  }
  HloInstruction* Back(HloInstruction* x) {
    if (compute_ == type_) return x;
    return Add(HloInstruction::CreateConvert(
        ShapeUtil::ChangeElementType(x->shape(), type_), x));
  }

  HloComputation& computation_;
  HloInstruction* norm_;
  expansion::AddComputations& adders_;
  PrimitiveType type_, compute_;
  int64_t feature_;
  int64_t features_ = 0;
  std::vector<int64_t> dims_, reduced_;
};

HloInstruction* Expander::Expand() {
  const HloOpcode opcode = norm_->opcode();
  const int64_t elements = ShapeUtil::ElementsIn(Whole());
  HloInstruction* m =
      PerFeatureConstant(features_ == 0 ? 0.0 : elements / features_);
  // epsilon is an f32 attribute in XLA.
  HloInstruction* epsilon =
      PerFeatureConstant(static_cast<float>(norm_->epsilon()));
  HloInstruction* x = Operand(0);
  HloInstruction* scale = Operand(1);
  HloInstruction* mean;
  HloInstruction* var;
  HloInstruction* centered;
  if (opcode == HloOpcode::kBatchNormTraining) {
    mean = Binary(HloOpcode::kDivide, Sum(x), m);
    centered = Binary(HloOpcode::kSubtract, x, Spread(mean));
    var = Binary(HloOpcode::kDivide,
                 Sum(Binary(HloOpcode::kMultiply, centered, centered)), m);
  } else {
    const bool inference = opcode == HloOpcode::kBatchNormInference;
    mean = Operand(inference ? 3 : 2);
    var = Operand(inference ? 4 : 3);
    centered = Binary(HloOpcode::kSubtract, x, Spread(mean));
  }
  HloInstruction* deviation =
      Add(HloInstruction::CreateUnary(PerFeature(), HloOpcode::kSqrt,
                                      Binary(HloOpcode::kAdd, var, epsilon)));
  if (opcode != HloOpcode::kBatchNormGrad) {
    HloInstruction* y = Binary(
        HloOpcode::kAdd,
        Binary(HloOpcode::kMultiply,
               Binary(HloOpcode::kDivide, centered, Spread(deviation)),
               Spread(scale)),
        Spread(Operand(2)));
    if (opcode == HloOpcode::kBatchNormInference) return Back(y);
    return Add(HloInstruction::CreateTuple({Back(y), Back(mean), Back(var)}));
  }
  HloInstruction* dy = Operand(4);
  HloInstruction* grad_offset = Sum(dy);
  HloInstruction* grad_scale = Sum(
      Binary(HloOpcode::kDivide, Binary(HloOpcode::kMultiply, dy, centered),
             Spread(deviation)));
  HloInstruction* dx = Binary(
      HloOpcode::kMultiply,
      Spread(Binary(HloOpcode::kDivide, scale, deviation)),
      Binary(HloOpcode::kSubtract,
             Binary(HloOpcode::kSubtract, dy,
                    Spread(Binary(HloOpcode::kDivide, grad_offset, m))),
             Binary(HloOpcode::kMultiply, centered,
                    Spread(Binary(HloOpcode::kDivide, grad_scale,
                                  Binary(HloOpcode::kMultiply, m,
                                         deviation))))));
  return Add(HloInstruction::CreateTuple(
      {Back(dx), Back(grad_scale), Back(grad_offset)}));
}

}  // namespace

absl::StatusOr<bool> BatchNormExpanderPass::Run(HloModule& module) {
  expansion::AddComputations adders(module, "batch_norm_add");
  return expansion::ExpandEach(
      module,
      {HloOpcode::kBatchNormTraining, HloOpcode::kBatchNormInference,
       HloOpcode::kBatchNormGrad},
      [&](HloComputation& computation,
          HloInstruction* norm) -> absl::StatusOr<HloInstruction*> {
        return Expander(computation, norm, adders).Expand();
      });
}

}  // namespace mxla
