// cse: common-subexpression elimination. Within each computation, an
// instruction identical to an earlier one (same opcode, shape, operands and
// attributes; constants by value) is replaced by the earlier one. Parameters
// are never merged. Dead duplicates are left for dce.
//
// Instructions are bucketed by CseHash, which covers everything the
// identity test compares (constants' values, iota dimensions, compare
// directions, operands, ...), so only true duplicates and rare hash
// collisions share a bucket: the pass is linear in the computation's size,
// 16,000 distinct scalar constants included.
#ifndef MXLA_PASSES_CSE_H_
#define MXLA_PASSES_CSE_H_

#include <cstddef>
#include <cstdint>

#include "passes/hlo_pass.h"

namespace mxla {

// The hash CSE buckets by: equal for instructions that
// HloInstruction::IdenticalIgnoringName calls identical.
size_t CseHash(const HloInstruction& instruction);

class CsePass : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

  // Identity tests (IdenticalIgnoringName calls) made by the last Run: at
  // most one per instruction unless hashes collide. For tests that must
  // catch quadratic bucketing without timing it.
  int64_t last_run_comparisons() const { return comparisons_; }

 private:
  int64_t comparisons_ = 0;
};

}  // namespace mxla

#endif  // MXLA_PASSES_CSE_H_
