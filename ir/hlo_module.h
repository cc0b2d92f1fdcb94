// HloModule: owns computations, one of them the entry. Computations are
// stored in insertion order (a callee may come after its caller, as after
// XlaBuilder or fusion); MakeComputationPostOrder gives callees before
// callers, the order the text format needs. Instruction names are unique
// across the module as long as they are only set through
// HloComputation::AddInstruction.
//
// Pointers to computations and instructions stay valid until these are
// removed or the module is destroyed. Not thread-safe for mutation; const
// methods may run concurrently.
#ifndef MXLA_IR_HLO_MODULE_H_
#define MXLA_IR_HLO_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_form.h"
#include "ir/hlo_printer.h"

namespace mxla {

// One entry of XLA's `input_output_alias` module attribute: the result leaf
// at `output_index` (a path into the entry's result shape; {} for an array
// result) is written into the buffer of parameter `parameter_number`'s leaf
// at `parameter_index`, which the caller donates (runtime/executable.h).
// Printed and parsed as XLA does: `{1}: (0, {}, may-alias)`.
struct HloInputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;  // "must-alias"; else "may-alias"
  bool operator==(const HloInputOutputAlias&) const = default;
};

// An input_output_alias entry as buffer numbers: the result leaf and the
// argument leaf (over every parameter's array leaves, depth-first, in
// parameter order: runtime/buffer_leaves.h) it is written into.
struct AliasedLeaf {
  int64_t result_leaf = 0;
  int64_t argument_leaf = 0;
  bool operator==(const AliasedLeaf&) const = default;
};

class HloModule;

// The module's input_output_alias as leaf numbers, checked against its
// entry: InvalidArgument naming the entry when an output index or a
// parameter (number or index) does not lead to an array leaf, when an
// output or a parameter leaf is aliased twice (naming both entries), or
// when an output's byte size differs from its parameter's (naming both
// shapes; as in XLA, shapes of one size may alias, as through a bitcast).
absl::StatusOr<std::vector<AliasedLeaf>> ResolveInputOutputAliases(
    const HloModule& module);

class HloModule {
 public:
  // `name` is sanitized (ir/hlo_name.h); "" becomes "_", the name the
  // parser gives a module without a header.
  explicit HloModule(absl::string_view name) { set_name(name); }
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void set_name(absl::string_view name);

  // Adds an empty computation (its name sanitized and made unique) and
  // returns it, owned by
  // the module. The first one added with `is_entry` becomes the entry.
  HloComputation* AddComputation(std::string name, bool is_entry);
  // Null until set. `entry` must be owned by this module (unchecked).
  HloComputation* entry_computation() const { return entry_; }

  // The HLO rules the module follows (ir/hlo_form.h): kBuilder for a new or
  // parsed module. Passes advance it; the verifier checks against it.
  HloForm form() const { return form_; }
  // Moves the form forward to `form` (never back).
  void AdvanceForm(HloForm form) {
    if (form > form_) form_ = form;
  }
  void set_entry_computation(HloComputation* entry) { entry_ = entry; }

  // How many replicas and partitions the module runs on (XLA's
  // replica_count and num_partitions, from HLO text's header); 1 and 1
  // unless set. A run may name other counts (driver/compile_options.h).
  int64_t replica_count() const { return replica_count_; }
  int64_t num_partitions() const { return num_partitions_; }
  void set_replica_count(int64_t count) { replica_count_ = count; }
  void set_num_partitions(int64_t count) { num_partitions_ = count; }

  // The entry's input/output aliases (XLA's input_output_alias), in the
  // order given; the verifier checks them (ir/hlo_verifier.h).
  const std::vector<HloInputOutputAlias>& input_output_aliases() const {
    return input_output_aliases_;
  }
  void set_input_output_aliases(std::vector<HloInputOutputAlias> aliases) {
    input_output_aliases_ = std::move(aliases);
  }

  // Every computation in dependency order: callees before callers, the
  // entry last.
  std::vector<HloComputation*> MakeComputationPostOrder() const;
  // Every computation in insertion order.
  std::vector<HloComputation*> computations() const;
  // The first computation named `name`, or nullptr.
  HloComputation* GetComputationWithName(absl::string_view name) const;
  // Deletes computations that the entry does not reach (none if there is no
  // entry); pointers to them dangle afterwards.
  void RemoveUnusedComputations();

  // A deep copy (metadata included), owned by the caller; every computation
  // is copied, reachable or not. Names are kept, except that an instruction
  // and a computation sharing a name (legal in parsed text) cannot both keep
  // it in the copy: one gets a ".N" suffix.
  std::unique_ptr<HloModule> Clone() const;
  // Copies `computation` (and everything it calls), usually from another
  // module, into this one, renaming on collisions. Returns the copy, owned by
  // this module and not the entry.
  HloComputation* DeepCopyComputation(const HloComputation& computation);

  // HLO text (HloPrinter::ModuleToString).
  std::string ToString(const HloPrintOptions& options = {}) const;

  // Naming (used by HloComputation::AddInstruction): `hint`, sanitized
  // (ir/hlo_name.h), if it is free,
  // else the hint without a trailing ".N" plus the next free ".N" of that
  // base, so copying "add.1" again gives "add.2", not "add.1.1".
  // Computation names draw from the same pool; an empty hint means "name".
  std::string UniqueInstructionName(absl::string_view hint);
  // Makes `name` free again (used when an instruction is removed).
  void ReleaseInstructionName(const std::string& name);
  int64_t NextUniqueId() { return next_unique_id_++; }

 private:
  using ComputationMap = ComputationCloneMap;
  // Copies one computation; its callees must already be in `callee_copies`.
  HloComputation* CopyComputation(const HloComputation& from,
                                  const ComputationMap& callee_copies);
  std::string UniqueName(absl::string_view hint);

  std::string name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  HloForm form_ = HloForm::kBuilder;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
  int64_t next_unique_id_ = 0;
  std::vector<HloInputOutputAlias> input_output_aliases_;
  int64_t replica_count_ = 1;
  int64_t num_partitions_ = 1;
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_MODULE_H_
