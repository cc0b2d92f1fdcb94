// XlaBuilder: records a computation op by op, as XLA's builder does, into an
// HloModule whose binary ops still carry their implicit broadcasts
// (`broadcast_dimensions`); the lower-broadcasts pass makes them explicit.
//
// Ops are free functions taking XlaOps (see builder/ops.h, included below).
// Errors are deferred: the first failing op records its error in the builder
// and returns an invalid XlaOp; every later op is a no-op; Build() returns
// that first error. Every message names the op, the operand shapes, the
// broadcast_dimensions and the caller's file:line. Nothing aborts on user
// input, with one exception: ragged rows given to ConstantR2 trap (ops.h).
// An interactive front end (the Python module) makes each op with TryOp,
// or between a Checkpoint and a RollBack, so a failed op leaves no trace.
#ifndef MXLA_BUILDER_XLA_BUILDER_H_
#define MXLA_BUILDER_XLA_BUILDER_H_

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/hlo_module.h"
#include "ir/memory_budget.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

class XlaBuilder;
using SourceLocation = std::source_location;

// A handle to an op in a builder: a small value that owns nothing.
// Default-constructed and failed ops are invalid. A handle must not be used
// after its builder is destroyed: valid() does not (cannot) check that.
class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return handle_ >= 0 && builder_ != nullptr; }
  int64_t handle() const { return handle_; }
  XlaBuilder* builder() const { return builder_; }

 private:
  friend class XlaBuilder;
  XlaOp(int64_t handle, XlaBuilder* builder)
      : handle_(handle), builder_(builder) {}
  int64_t handle_ = -1;
  XlaBuilder* builder_ = nullptr;
};

// A built computation: an immutable HloModule, shared by copies and
// independent of the builder that made it. Nothing mutates the module, so
// copies may be read from several threads at once.
class XlaComputation {
 public:
  // Takes ownership of `module`. It must be non-null, with an entry
  // computation that has a root and parameters numbered 0..n-1, as Build()
  // guarantees; nothing checks this here (verify a parsed module first).
  explicit XlaComputation(std::unique_ptr<HloModule> module)
      : module_(std::move(module)) {}

  // Valid while this computation or any copy of it lives.
  const HloModule& module() const { return *module_; }
  // A mutable deep copy owned by the caller, for passes and compilation.
  std::unique_ptr<HloModule> CloneModule() const { return module_->Clone(); }
  const std::string& name() const { return module_->name(); }
  // The entry's parameter shapes, by parameter number, and its root's shape.
  ProgramShape GetProgramShape() const;
  // The module in HLO text.
  std::string ToString() const { return module_->ToString(); }

 private:
  std::shared_ptr<const HloModule> module_;
};

// Owns the module under construction. Not thread-safe: use one builder from
// one thread at a time (separate builders are independent).
class XlaBuilder {
 public:
  // `name` names the module and its entry computation.
  explicit XlaBuilder(std::string name);
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;

  const std::string& name() const { return name_; }

  // The budget (ir/memory_budget.h) each constant must fit (ConstantR1,
  // ConstantR2); default: the machine's physical memory. A sub-builder
  // inherits it. Compile and Run have their own (runtime/memory_limit.h).
  int64_t memory_limit_bytes() const { return memory_limit_bytes_; }
  void set_memory_limit_bytes(int64_t bytes) { memory_limit_bytes_ = bytes; }

  // XLA's SetUpAlias: the built module's result leaf at `output_index` is
  // written into the buffer of parameter `param_number`'s leaf at
  // `param_index`, which a caller may donate (runtime/executable.h). Build
  // checks the aliases against the computation (ResolveInputOutputAliases,
  // ir/hlo_module.h) and fails with its InvalidArgument.
  void SetUpAlias(std::vector<int64_t> output_index, int64_t param_number,
                  std::vector<int64_t> param_index);

  // The computation with the last added op (not rolled back) as root, or
  // the first recorded error (with its own code). InvalidArgument if no op
  // was added or the parameter numbers are not 0..n-1. The result is a deep copy: the builder
  // stays usable, and later ops and Builds see the same instructions.
  absl::StatusOr<XlaComputation> Build(
      SourceLocation location = SourceLocation::current());
  // The same with `root` as root; InvalidArgument if `root` is invalid or
  // belongs to another builder.
  absl::StatusOr<XlaComputation> Build(
      XlaOp root, SourceLocation location = SourceLocation::current());

  // The shape of `op`. Once any op has failed this returns that first error,
  // even for a valid `op`; otherwise InvalidArgument if `op` is invalid or
  // belongs to another builder.
  absl::StatusOr<Shape> GetShape(XlaOp op) const;
  // OK, or the first error recorded.
  absl::Status first_error() const { return first_error_; }

  // Records `error` as the builder's error unless one is already recorded
  // (an OK `error` changes nothing). Later ops become no-ops.
  void NoteError(absl::Status error);

  // The builder's state at a moment, to return to with RollBack.
  struct Checkpoint {
    int64_t handles = 0;
    int64_t instructions = 0;
    int64_t parameters = 0;
    bool had_error = false;
  };
  Checkpoint MakeCheckpoint() const;
  // Returns the builder to `checkpoint`, which this builder made, with no
  // rollback to an earlier point since: removes the ops made since (their
  // handles become invalid: LookUp says they were rolled back), and the
  // parameters, called computations and error recorded since. An error
  // recorded before the checkpoint stays. Internal only on an mxla bug.
  absl::Status RollBack(const Checkpoint& checkpoint);
  // Makes an op without poisoning the builder: runs `make`, which adds the
  // op (and whatever it needs) to this builder. If that records an error or
  // returns an invalid op, rolls back to before the call and returns the
  // error, and the builder is as it was. If the builder already had an
  // error, returns that first error (its message names the op and call
  // site that made it).
  absl::StatusOr<XlaOp> TryOp(absl::FunctionRef<XlaOp()> make);

  // A new builder, named "<this name>.<name>", for a nested computation (a
  // reducer). It keeps no pointer to this builder, so either may outlive the
  // other; its errors are its own and never reach this builder.
  std::unique_ptr<XlaBuilder> CreateSubBuilder(const std::string& name);

  // --- For op implementations (builder/ops.cc), not for users. ---

  // Runs `create` unless an error is already recorded (then returns an
  // invalid op). If `create` fails, records its error with the same code,
  // prefixed with `context` and the call site, and returns an invalid op.
  XlaOp ReportErrorOrReturn(absl::FunctionRef<absl::StatusOr<XlaOp>()> create,
                            absl::FunctionRef<std::string()> context,
                            const SourceLocation& location);
  // The instruction behind `op` (owned by computation()), or InvalidArgument
  // if `op` is invalid or belongs to another builder.
  absl::StatusOr<HloInstruction*> LookUp(XlaOp op) const;
  // Adds an instruction to computation(), which takes ownership, sets its
  // call-site metadata and returns its handle.
  XlaOp AddInstruction(std::unique_ptr<HloInstruction> instruction,
                       absl::string_view op_name,
                       const SourceLocation& location);
  // A handle for an instruction already added to computation() (the last
  // instruction of a sequence the op emitted itself).
  XlaOp HandleFor(HloInstruction* instruction);
  // The builder's entry computation under construction.
  HloComputation* computation() const { return entry_; }
  // Deep-copies `computation`'s entry (and what it calls) into this
  // builder's module, renaming on collisions; returns the module-owned copy
  // (for reduce's to_apply).
  HloComputation* AddCalledComputation(const XlaComputation& computation);
  // The same for a computation of any module (a reducer of a module being
  // inlined, builder/inline_computation.h).
  HloComputation* AddCalledComputation(const HloComputation& computation);
  // Registers parameter `number`; InvalidArgument if it is negative or
  // already registered.
  absl::Status RegisterParameter(int64_t number);

 private:
  absl::StatusOr<XlaComputation> BuildWithRoot(int64_t root_handle,
                                               const SourceLocation& location);
  absl::Status CheckParametersDense() const;

  std::string name_;
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_;
  // Indexed by handle; null for an op removed by RollBack.
  std::vector<HloInstruction*> instructions_;
  std::vector<int64_t> parameter_numbers_;
  absl::Status first_error_;
  int64_t memory_limit_bytes_ = PhysicalMemoryBytes();
};

// "file.cc:42": the call site as error messages print it.
std::string CallSiteString(const SourceLocation& location);

}  // namespace mxla

#include "builder/ops.h"  // IWYU pragma: export

#endif  // MXLA_BUILDER_XLA_BUILDER_H_
