#include "codegen/kernel_groups.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_printer.h"
#include "ir/status_macros.h"

namespace mxla::codegen {
namespace {

// `text` with every slice's bounds (`, slice={...}`) left out, and how many
// there were.
std::pair<std::string, int64_t> WithoutSliceBounds(absl::string_view text) {
  constexpr absl::string_view kBounds = ", slice={";
  std::string out;
  int64_t count = 0;
  size_t at = 0;
  while (true) {
    const size_t found = text.find(kBounds, at);
    if (found == absl::string_view::npos) break;
    const size_t close = text.find('}', found + kBounds.size());
    if (close == absl::string_view::npos) break;
    absl::StrAppend(&out, text.substr(at, found - at), ", slice={?}");
    at = close + 1;
    ++count;
  }
  absl::StrAppend(&out, text.substr(at));
  return {std::move(out), count};
}

// Where `fusion` reads through its operands when it is `first` with only
// the bounds of slices of parameters moved: per operand the byte offset
// (0 for most), so that first's kernel computes fusion on its operands'
// buffers moved by them. Nothing when they differ otherwise (the caller
// has checked that they print alike but for `slices` slices' bounds): a
// slice that is not a parameter's only user, at other strides, a
// parameter sliced twice, an in-place operand, an offset before the buffer
// or not a multiple of 64 bytes (the kernels' buffers keep their
// alignment).
std::optional<std::vector<int64_t>> SliceOffsets(const HloInstruction& first,
                                                 const HloInstruction& fusion,
                                                 int64_t slices) {
  const std::vector<HloInstruction*> a =
      first.to_apply()->MakeInstructionPostOrder();
  const std::vector<HloInstruction*> b =
      fusion.to_apply()->MakeInstructionPostOrder();
  if (a.size() != b.size()) return std::nullopt;
  std::vector<int64_t> offsets(fusion.operand_count(), 0);
  std::vector<bool> moved(fusion.operand_count(), false);
  const int64_t in_place = InPlaceFusionOperand(fusion);
  int64_t seen = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const HloInstruction& x = *a[i];
    const HloInstruction& y = *b[i];
    if (x.opcode() != y.opcode() || x.shape() != y.shape()) return std::nullopt;
    if (y.opcode() != HloOpcode::kSlice) continue;
    ++seen;
    if (x.slice_starts() == y.slice_starts()) continue;
    if (x.slice_strides() != y.slice_strides()) return std::nullopt;
    const HloInstruction& p = *x.operand(0);
    const HloInstruction& q = *y.operand(0);
    if (p.opcode() != HloOpcode::kParameter ||
        q.opcode() != HloOpcode::kParameter ||
        p.parameter_number() != q.parameter_number() || p.user_count() != 1 ||
        q.user_count() != 1 || q.parameter_number() == in_place ||
        moved[q.parameter_number()] || p.shape() != q.shape()) {
      return std::nullopt;
    }
    const Shape& shape = q.shape();
    const int bits = primitive_util::BitWidth(shape.element_type());
    if (bits % 8 != 0) return std::nullopt;
    // Row-major: the element offset of the start's move.
    int64_t elements = 0, stride = 1;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      elements += (y.slice_starts()[d] - x.slice_starts()[d]) * stride;
      stride *= shape.dimensions(d);
    }
    const int64_t bytes = elements * (bits / 8);
    if (bytes < 0 || bytes % 64 != 0) return std::nullopt;
    moved[q.parameter_number()] = true;
    offsets[q.parameter_number()] = bytes;
  }
  // Slices inside computations the fused one calls are not compared.
  if (seen != slices) return std::nullopt;
  return offsets;
}

// `text` (a fusion's canonical form) with the names in its plan's
// `buffered={name:writer, ...}` replaced by the instructions' positions in
// the fused computation's post order, as the canonical form names them:
// the layers of a model buffer the same values under other names.
std::string WithBufferedPositions(const HloInstruction& fusion,
                                  absl::string_view text) {
  constexpr absl::string_view kBuffered = "buffered={";
  absl::flat_hash_map<std::string, int64_t> position;
  const std::vector<HloInstruction*> order =
      fusion.to_apply()->MakeInstructionPostOrder();
  for (size_t i = 0; i < order.size(); ++i) position[order[i]->name()] = i;
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t found = text.find(kBuffered, at);
    if (found == absl::string_view::npos) break;
    const size_t first = found + kBuffered.size();
    const size_t close = text.find('}', first);
    if (close == absl::string_view::npos) break;
    absl::StrAppend(&out, text.substr(at, first - at));
    std::vector<std::string> values;
    for (absl::string_view value :
         absl::StrSplit(text.substr(first, close - first), ", ",
                        absl::SkipEmpty())) {
      const size_t colon = value.rfind(':');
      auto it = position.find(value.substr(0, colon));
      values.push_back(
          it == position.end() || colon == absl::string_view::npos
              ? std::string(value)
              : absl::StrCat("%", it->second, value.substr(colon)));
    }
    absl::StrAppend(&out, absl::StrJoin(values, ", "), "}");
    at = close + 1;
  }
  absl::StrAppend(&out, text.substr(at));
  return out;
}

}  // namespace

absl::StatusOr<KernelGroups> GroupKernels(const HloModule& fused,
                                          bool move_slices) {
  const HloComputation* entry = fused.entry_computation();
  RET_CHECK(entry != nullptr);
  KernelGroups groups;
  HloPrintOptions canonical;
  canonical.canonical = true;
  struct Kernel {
    int64_t index;
    std::vector<int64_t> offsets;
  };
  absl::flat_hash_map<std::string, Kernel> kernel_of_key;
  // Per text without slice bounds, the kernels' first fusions that print so.
  absl::flat_hash_map<std::string, std::vector<int64_t>> kernels_sliced;
  for (const HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kFusion) {
      if (IsCodelessEntryOp(instruction->opcode())) continue;
      if (IsSubprogramOp(instruction->opcode())) continue;  // runtime steps
      return absl::FailedPreconditionError(absl::StrCat(
          "codegen needs a fused module (run the fusion pass): '",
          instruction->name(), "' (", HloOpcodeString(instruction->opcode()),
          ") is outside any fusion"));
    }
    // Fusions that print alike in canonical form compute alike.
    std::string key = WithBufferedPositions(
        *instruction, HloPrinter::InstructionToString(*instruction, canonical));
    auto it = kernel_of_key.find(key);
    if (it == kernel_of_key.end()) {
      Kernel kernel{static_cast<int64_t>(groups.first_fusion.size()), {}};
      bool shared = false;
      if (move_slices && instruction->fusion_plan() != nullptr) {
        auto [unsliced, slices] = WithoutSliceBounds(key);
        std::vector<int64_t>& candidates = kernels_sliced[unsliced];
        for (int64_t candidate : candidates) {
          std::optional<std::vector<int64_t>> offsets = SliceOffsets(
              *groups.first_fusion[candidate], *instruction, slices);
          if (!offsets.has_value()) continue;
          kernel = Kernel{candidate, *std::move(offsets)};
          shared = true;
          break;
        }
        if (!shared && slices > 0) candidates.push_back(kernel.index);
      }
      if (!shared) groups.first_fusion.push_back(instruction);
      it = kernel_of_key.emplace(std::move(key), std::move(kernel)).first;
    }
    groups.fusions.push_back(instruction);
    groups.kernel_of_fusion.push_back(it->second.index);
    groups.operand_offsets.push_back(it->second.offsets);
  }
  return groups;
}

}  // namespace mxla::codegen
