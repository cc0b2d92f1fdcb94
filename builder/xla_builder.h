// XlaBuilder: records a computation op by op, as XLA's builder does, into an
// HloModule whose binary ops still carry their implicit broadcasts
// (`broadcast_dimensions`); the lower-broadcasts pass makes them explicit.
//
// Ops are free functions taking XlaOps (see builder/ops.h, included below).
// Errors are deferred: the first failing op records its error in the builder
// and returns an invalid XlaOp; every later op is a no-op; Build() returns
// that first error. Every message names the op, the operand shapes, the
// broadcast_dimensions and the caller's file:line. Nothing aborts on user
// input.
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
#include "ir/shape_inference.h"

namespace mxla {

class XlaBuilder;
using SourceLocation = std::source_location;

// A handle to an op in a builder. Default-constructed and failed ops are
// invalid.
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

// A built computation: an immutable HloModule (shared by copies).
class XlaComputation {
 public:
  explicit XlaComputation(std::unique_ptr<HloModule> module)
      : module_(std::move(module)) {}

  const HloModule& module() const { return *module_; }
  // A mutable copy, for passes and compilation.
  std::unique_ptr<HloModule> CloneModule() const { return module_->Clone(); }
  const std::string& name() const { return module_->name(); }
  ProgramShape GetProgramShape() const;
  // The module in HLO text.
  std::string ToString() const { return module_->ToString(); }

 private:
  std::shared_ptr<const HloModule> module_;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string name);
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;

  const std::string& name() const { return name_; }

  // The computation with the last added op as root, or the first error.
  absl::StatusOr<XlaComputation> Build(
      SourceLocation location = SourceLocation::current());
  // The computation with `root` as root, or the first error. The builder
  // stays usable: later ops and Builds see the same instructions.
  absl::StatusOr<XlaComputation> Build(
      XlaOp root, SourceLocation location = SourceLocation::current());

  absl::StatusOr<Shape> GetShape(XlaOp op) const;
  // OK, or the first error recorded.
  absl::Status first_error() const { return first_error_; }

  // Records `error` as the builder's error unless one is already recorded.
  void NoteError(absl::Status error);

  // A builder for a nested computation (a reducer). Its errors are its own.
  std::unique_ptr<XlaBuilder> CreateSubBuilder(const std::string& name);

  // --- For op implementations (builder/ops.cc), not for users. ---

  // Runs `create` unless an error is already recorded; records its error
  // (prefixed with `context` and the call site) and returns an invalid op.
  XlaOp ReportErrorOrReturn(absl::FunctionRef<absl::StatusOr<XlaOp>()> create,
                            absl::FunctionRef<std::string()> context,
                            const SourceLocation& location);
  // The instruction behind `op`, or an error if `op` is invalid or belongs
  // to another builder.
  absl::StatusOr<HloInstruction*> LookUp(XlaOp op) const;
  // Adds an instruction (with call-site metadata) and returns its handle.
  XlaOp AddInstruction(std::unique_ptr<HloInstruction> instruction,
                       absl::string_view op_name,
                       const SourceLocation& location);
  // A handle for an instruction already added to computation() (the last
  // instruction of a sequence the op emitted itself).
  XlaOp HandleFor(HloInstruction* instruction);
  // The builder's entry computation under construction.
  HloComputation* computation() const { return entry_; }
  // Copies `computation` into this builder's module (for reduce's to_apply).
  HloComputation* AddCalledComputation(const XlaComputation& computation);
  // Registers parameter `number`; fails if already registered.
  absl::Status RegisterParameter(int64_t number);

 private:
  absl::StatusOr<XlaComputation> BuildWithRoot(int64_t root_handle,
                                               const SourceLocation& location);
  absl::Status CheckParametersDense() const;

  std::string name_;
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_;
  std::vector<HloInstruction*> instructions_;  // indexed by handle
  std::vector<int64_t> parameter_numbers_;
  absl::Status first_error_;
};

// "file.cc:42": the call site as error messages print it.
std::string CallSiteString(const SourceLocation& location);

}  // namespace mxla

#include "builder/ops.h"  // IWYU pragma: export

#endif  // MXLA_BUILDER_XLA_BUILDER_H_
