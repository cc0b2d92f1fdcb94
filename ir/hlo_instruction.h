// HloInstruction: one node of an HLO computation. It has an opcode, a result
// shape, operands, a name unique in its module, and the attributes its
// opcode takes (ir/hlo_ops.def lists them per op), kept in one typed bag
// (ir/hlo_attribute.h). Instructions are created by the Create* factories
// or cloned (CloneWithNewOperands), owned by an HloComputation, and keep
// their users up to date as operands change.
//
// The typed accessors read the bag:
//   dimensions()            broadcast, transpose, reduce
//   broadcast_dimensions()  a binary elementwise op before lowering (the
//                           builder's implicit broadcast; absent afterwards)
//   comparison_direction()  compare
//   literal()               constant
//   parameter_number()      parameter
//   iota_dimension()        iota
//   tuple_index()           get-tuple-element
//   fusion_kind()           fusion
//   fusion_plan()           fusion, once planned (ir/fusion_plan.h)
// Called computations (reduce's to_apply, fusion's calls) are kept apart,
// in called_computations(), so that cloning can remap them.
#ifndef MXLA_IR_HLO_INSTRUCTION_H_
#define MXLA_IR_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/convolution_dimension_numbers.h"
#include "ir/dot_dimension_numbers.h"
#include "ir/gather_dimension_numbers.h"
#include "ir/hlo_attribute.h"
#include "ir/hlo_opcode.h"
#include "ir/linear_algebra.h"
#include "ir/literal.h"
#include "ir/padding_config.h"
#include "ir/ragged_dot_dimension_numbers.h"
#include "ir/scatter_dimension_numbers.h"
#include "ir/shape.h"
#include "ir/window.h"

namespace mxla {

class HloComputation;

// Where an instruction came from: the builder call site.
struct OpMetadata {
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  bool empty() const { return op_name.empty() && source_file.empty(); }
};

// The Create* factories do not validate: the caller passes the result shape
// (ShapeInference computes it) and the verifier checks it. Operands must be
// non-null. A new instruction is registered as a user of its operands at
// once; destroying one that was never added to a computation detaches it
// again, so no operand keeps a dangling user.
class HloInstruction {
 public:
  static std::unique_ptr<HloInstruction> CreateParameter(
      int64_t parameter_number, const Shape& shape, std::string name);
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal);
  static std::unique_ptr<HloInstruction> CreateIota(const Shape& shape,
                                                    int64_t iota_dimension);
  static std::unique_ptr<HloInstruction> CreateUnary(const Shape& shape,
                                                     HloOpcode opcode,
                                                     HloInstruction* operand);
  // A binary elementwise op (not compare). `broadcast_dimensions` is the
  // builder's implicit broadcast; nullopt in lowered HLO.
  static std::unique_ptr<HloInstruction> CreateBinary(
      const Shape& shape, HloOpcode opcode, HloInstruction* lhs,
      HloInstruction* rhs,
      std::optional<std::vector<int64_t>> broadcast_dimensions = std::nullopt);
  static std::unique_ptr<HloInstruction> CreateCompare(
      const Shape& shape, HloInstruction* lhs, HloInstruction* rhs,
      ComparisonDirection direction,
      std::optional<std::vector<int64_t>> broadcast_dimensions = std::nullopt);
  static std::unique_ptr<HloInstruction> CreateSelect(const Shape& shape,
                                                      HloInstruction* pred,
                                                      HloInstruction* on_true,
                                                      HloInstruction* on_false);
  static std::unique_ptr<HloInstruction> CreateConvert(const Shape& shape,
                                                       HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateBroadcast(
      const Shape& shape, HloInstruction* operand,
      absl::Span<const int64_t> dimensions);
  static std::unique_ptr<HloInstruction> CreateReshape(const Shape& shape,
                                                       HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateTranspose(
      const Shape& shape, HloInstruction* operand,
      absl::Span<const int64_t> dimensions);
  // operands = inputs..., init_values...; one result per input (a tuple
  // when there are several). `to_apply` is referenced, not owned: it must
  // belong to the same module.
  static std::unique_ptr<HloInstruction> CreateReduce(
      const Shape& shape, absl::Span<HloInstruction* const> operands,
      absl::Span<const int64_t> dimensions, HloComputation* to_apply);
  // A tuple's shape is made from its elements' shapes.
  static std::unique_ptr<HloInstruction> CreateTuple(
      absl::Span<HloInstruction* const> elements);
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(
      const Shape& shape, HloInstruction* operand, int64_t index);
  // `fused_computation` is referenced, not owned: it must belong to the
  // same module (passes/fusion.h builds one per fusion).
  static std::unique_ptr<HloInstruction> CreateFusion(
      const Shape& shape, FusionKind kind,
      absl::Span<HloInstruction* const> operands,
      HloComputation* fused_computation);
  // A generic constructor used by the parser: opcode, shape and operands;
  // attributes are then set with the setters below.
  static std::unique_ptr<HloInstruction> CreateGeneric(
      HloOpcode opcode, const Shape& shape,
      absl::Span<HloInstruction* const> operands);

  // The one clone primitive: a copy of this instruction (opcode, name,
  // attributes, called computations, metadata) with `shape` and
  // `new_operands` (as many as it has now). Not yet in any computation.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(
      const Shape& shape, absl::Span<HloInstruction* const> new_operands) const;

  ~HloInstruction();
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;

  // Setters below change only this instruction: nothing is re-inferred or
  // checked (the verifier does that).
  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  void set_shape(const Shape& shape) { shape_ = shape; }
  const std::string& name() const { return name_; }
  // Only HloComputation (which keeps names unique and valid) and the parser
  // (whose names are valid) should rename; a name set before
  // AddInstruction is its hint.
  void set_name(std::string name) { name_ = std::move(name); }
  // Assigned by HloComputation::AddInstruction; -1 before.
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }
  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // Operands and users. Users are listed once each, in an order that
  // depends only on the sequence of edits (deterministic, not meaningful:
  // removing a user moves the last one into its place). `i` is not
  // bounds-checked.
  int64_t operand_count() const { return operands_.size(); }
  HloInstruction* mutable_operand(int64_t i) const { return operands_[i]; }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return users_.size(); }
  // O(1): a parameter read by 100,000 instructions must not make graph
  // edits quadratic.
  bool IsUserOf(const HloInstruction* operand) const {
    return operand->user_positions_.contains(this);
  }

  // Replaces operand `i` (in range, unchecked) by the non-null
  // `new_operand`, keeping user lists right. Shapes are not checked.
  void ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Makes every user of this instruction use `replacement` instead (the
  // computation's root is updated by HloComputation::ReplaceInstruction).
  // `replacement` must not depend on this instruction, or a cycle results.
  void ReplaceAllUsesWith(HloInstruction* replacement);
  // Drops all operands (used before deleting an instruction).
  void DetachFromOperands();

  // Attributes (see the table above). A getter of an absent attribute
  // returns its default: empty dimensions, kEq, parameter number -1, index
  // and iota dimension 0, kLoop.
  const HloAttributes& attributes() const { return attributes_; }
  HloAttributes& mutable_attributes() { return attributes_; }
  const std::vector<int64_t>& dimensions() const;
  int64_t dimensions(int64_t i) const { return dimensions()[i]; }
  void set_dimensions(std::vector<int64_t> dims);
  // pad's padding configuration.
  PaddingConfig padding_config() const;
  void set_padding_config(const PaddingConfig& config);
  // custom-call's custom_call_target ("" if unset).
  const std::string& custom_call_target() const;
  void set_custom_call_target(std::string target);
  // dynamic-slice's dynamic_slice_sizes.
  const std::vector<int64_t>& dynamic_slice_sizes() const;
  void set_dynamic_slice_sizes(std::vector<int64_t> sizes);
  std::optional<std::vector<int64_t>> broadcast_dimensions() const;
  void set_broadcast_dimensions(std::optional<std::vector<int64_t>> dims);
  ComparisonDirection comparison_direction() const;
  // compare with type=TOTALORDER (floats only): -NaN < -inf < ... < -0 <
  // +0 < ... < inf < NaN, by sign and magnitude bits.
  bool total_order_comparison() const;
  void set_total_order_comparison(bool total_order);
  void set_comparison_direction(ComparisonDirection d);
  // literal() requires has_literal() (CreateConstant or set_literal).
  const Literal& literal() const;
  bool has_literal() const;
  void set_literal(Literal literal);
  int64_t parameter_number() const;
  void set_parameter_number(int64_t n);
  int64_t iota_dimension() const;
  void set_iota_dimension(int64_t d);
  int64_t tuple_index() const;
  void set_tuple_index(int64_t i);
  // gather's dimension numbers and slice sizes (absent lists are empty).
  GatherDimensionNumbers gather_dimension_numbers() const;
  void set_gather_dimension_numbers(const GatherDimensionNumbers& dnums);
  std::vector<int64_t> gather_slice_sizes() const;
  // scatter's dimension numbers (absent lists are empty).
  ScatterDimensionNumbers scatter_dimension_numbers() const;
  void set_scatter_dimension_numbers(const ScatterDimensionNumbers& dnums);
  // convolution's and reduce-window's window (empty when absent).
  Window window() const;
  void set_window(const Window& window);
  // convolution's dimension numbers (InvalidArgument for malformed
  // dim_labels, which the parser rejects) and group counts (1 when absent).
  absl::StatusOr<ConvolutionDimensionNumbers> convolution_dimension_numbers()
      const;
  void set_convolution_dimension_numbers(
      const ConvolutionDimensionNumbers& dnums);
  int64_t feature_group_count() const;
  // scan's num_carries (-1 when missing) and is_reverse (false when
  // missing).
  int64_t num_carries() const;
  bool is_reverse() const;
  // topk's k (-1 when missing) and largest (true when missing).
  int64_t topk_k() const;
  bool topk_largest() const;
  int64_t batch_group_count() const;
  // ragged-dot's dimension numbers (absent lists are empty).
  RaggedDotDimensionNumbers ragged_dot_dimension_numbers() const;
  // The batch-norm ops' epsilon (0 when missing or not a number) and
  // feature_index (-1 when missing).
  double epsilon() const;
  int64_t feature_index() const;
  void set_batch_norm_attributes(float epsilon, int64_t feature_index);
  // cholesky's `lower` (false when absent, XLA's default) and
  // triangular-solve's options; an error when a flag is neither true nor
  // false or transpose_a is absent or unknown (XLA's parser leaves it
  // invalid, and its verifier refuses it).
  absl::StatusOr<bool> cholesky_lower() const;
  void set_cholesky_lower(bool lower);
  absl::StatusOr<TriangularSolveOptions> triangular_solve_options() const;
  void set_triangular_solve_options(const TriangularSolveOptions& options);
  // rng's distribution: an error naming the attribute's value when it is
  // missing or neither rng_uniform nor rng_normal.
  absl::StatusOr<RandomDistribution> rng_distribution() const;
  void set_rng_distribution(RandomDistribution distribution);
  // rng-bit-generator's `algorithm`.
  absl::StatusOr<RandomAlgorithm> rng_algorithm() const;
  void set_rng_algorithm(RandomAlgorithm algorithm);
  // reduce-precision's exponent_bits and mantissa_bits (0 when absent).
  int64_t exponent_bits() const;
  int64_t mantissa_bits() const;
  void set_reduce_precision_bits(int64_t exponent_bits, int64_t mantissa_bits);
  // dot's dimension numbers (absent lists are empty).
  DotDimensionNumbers dot_dimension_numbers() const;
  void set_dot_dimension_numbers(const DotDimensionNumbers& dnums);
  // slice's bounds per dimension (empty when absent).
  std::vector<int64_t> slice_starts() const { return SliceColumn(0); }
  std::vector<int64_t> slice_limits() const { return SliceColumn(1); }
  std::vector<int64_t> slice_strides() const { return SliceColumn(2); }
  void set_slice(absl::Span<const int64_t> starts,
                 absl::Span<const int64_t> limits,
                 absl::Span<const int64_t> strides);
  const std::vector<HloComputation*>& called_computations() const {
    return called_computations_;
  }
  void set_called_computations(std::vector<HloComputation*> computations) {
    called_computations_ = std::move(computations);
  }
  // reduce's to_apply / fusion's calls: the first called computation, or
  // null if there is none (any other opcode, or a malformed instruction:
  // the verifier and the evaluator report it as InvalidArgument).
  HloComputation* to_apply() const {
    return called_computations_.empty() ? nullptr : called_computations_[0];
  }
  FusionKind fusion_kind() const;
  void set_fusion_kind(FusionKind kind);
  // How codegen emits this fusion (passes/fusion_planning.h), or null.
  const FusionPlan* fusion_plan() const;
  void set_fusion_plan(std::optional<FusionPlan> plan);
  const OpMetadata& metadata() const { return metadata_; }
  void set_metadata(OpMetadata metadata) { metadata_ = std::move(metadata); }

  // Copies the attributes, called computations (as pointers) and metadata
  // (not shape, operands, name) of `other`. A literal is shared: it is
  // immutable.
  void CopyAttributesFrom(const HloInstruction& other);
  // True if the two have the same opcode, shape, operands and attributes
  // (names and metadata ignored): the test CSE uses. Operands and called
  // computations compare by identity, literals bitwise. Two constants must
  // both have literals.
  bool IdenticalIgnoringName(const HloInstruction& other) const;
  // The same test without operands and called computations: opcode, shape
  // and the attributes the opcode uses (literals bitwise). For comparing
  // instructions of different computations or modules.
  bool IdenticalAttributes(const HloInstruction& other) const;
  // A hash of what IdenticalAttributes compares (the literal's bytes
  // included): equal for instructions it calls identical. Not stable across
  // processes.
  size_t AttributeHash() const;

  // The instruction as one HLO text line without indentation or ROOT.
  std::string ToString() const;

 private:
  // Column 0, 1 or 2 (start, limit, stride) of slice's bound triples.
  std::vector<int64_t> SliceColumn(int64_t column) const;
  HloInstruction(HloOpcode opcode, const Shape& shape);
  void AppendOperand(HloInstruction* operand);
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);
  // Forgets operands and users without touching them: HloComputation's
  // destructor, which frees operands and users together.
  friend class HloComputation;
  void ForgetEdges();

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  int64_t unique_id_ = -1;
  HloComputation* parent_ = nullptr;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  absl::flat_hash_map<const HloInstruction*, int64_t> user_positions_;

  HloAttributes attributes_;
  std::vector<HloComputation*> called_computations_;
  OpMetadata metadata_;
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_INSTRUCTION_H_
