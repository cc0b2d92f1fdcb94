// ragged-all-to-all in the oracle: every member's input and metadata (in
// rank order, gathered by the caller through the communicator's AllGather)
// and this device's output give this device's result, in plain code over
// Literals. The metadata of every member is checked, member by member in
// rank order, so that every device of a group reports the same first
// mistake: a sender's input rows or its rows in the receiver's output out
// of range, then a recv_sizes entry that disagrees with what its peer
// sends. Update u of the k = length / group size a member sends to the
// member of rank j is metadata entry j·k + u (XLA's layout).
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {
namespace {

enum Operand { kInput, kInputOffsets, kSendSizes, kOutputOffsets, kRecvSizes };

template <typename... Args>
absl::Status RunError(const HloInstruction& op, const Args&... text) {
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(op.opcode()), " '", op.name(), "': ", text...));
}

std::vector<int64_t> Integers(const Literal& literal) {
  if (literal.shape().element_type() == S32) {
    const absl::Span<const int32_t> values = literal.data<int32_t>();
    return std::vector<int64_t>(values.begin(), values.end());
  }
  const absl::Span<const int64_t> values = literal.data<int64_t>();
  return std::vector<int64_t>(values.begin(), values.end());
}

// One member's metadata as integers.
struct Metadata {
  std::vector<int64_t> input_offsets, send_sizes, output_offsets, recv_sizes;
};

// Whether rows [offset, offset + size) lie in [0, rows).
bool InRows(int64_t offset, int64_t size, int64_t rows) {
  return offset >= 0 && size >= 0 && offset <= rows && size <= rows - offset;
}

absl::Status CheckSends(const HloInstruction& op,
                        absl::Span<const int64_t> devices, int64_t i,
                        const Metadata& m, int64_t k, int64_t input_rows,
                        int64_t output_rows) {
  for (size_t e = 0; e < m.send_sizes.size(); ++e) {
    const int64_t peer = devices[e / k];
    const int64_t size = m.send_sizes[e];
    if (!InRows(m.input_offsets[e], size, input_rows)) {
      return RunError(op, "device ", devices[i], " sends device ", peer,
                      " (update ", e % k, ") input rows from input_offsets[", e,
                      "]=", m.input_offsets[e], " with send_sizes[", e,
                      "]=", size, ", out of range for its input of ",
                      input_rows, " rows");
    }
    if (!InRows(m.output_offsets[e], size, output_rows)) {
      return RunError(op, "device ", devices[i], " sends device ", peer,
                      " (update ", e % k, ") rows for output_offsets[", e,
                      "]=", m.output_offsets[e], " with send_sizes[", e,
                      "]=", size, ", out of range for an output of ",
                      output_rows, " rows");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckReceives(const HloInstruction& op,
                           absl::Span<const int64_t> devices, int64_t i,
                           const std::vector<Metadata>& all, int64_t k) {
  const Metadata& m = all[i];
  for (size_t e = 0; e < m.recv_sizes.size(); ++e) {
    const int64_t j = e / k;
    const int64_t sent_at = i * k + e % k;
    const int64_t sent = all[j].send_sizes[sent_at];
    if (m.recv_sizes[e] != sent) {
      return RunError(op, "device ", devices[i], " expects recv_sizes[", e,
                      "]=", m.recv_sizes[e], " rows from device ", devices[j],
                      " (update ", e % k, "), but device ", devices[j],
                      " sends send_sizes[", sent_at, "]=", sent);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvaluateRaggedAllToAll(
    const HloInstruction& op, absl::Span<const int64_t> devices, int64_t rank,
    const std::vector<std::vector<Literal>>& members, const Literal& output) {
  const int64_t n = devices.size();
  RET_CHECK(static_cast<int64_t>(members.size()) == n && rank < n,
            op.ToString());
  const int64_t count = members[0][kSendSizes].element_count();
  if (count % n != 0) {
    return RunError(op, "the offsets and sizes have ", count,
                    " elements, not a multiple of the group size ", n,
                    " of group {", absl::StrJoin(devices, ","), "}");
  }
  const int64_t k = count / n;
  const Shape& input_shape = members[0][kInput].shape();
  const int64_t input_rows = input_shape.dimensions(0);
  const int64_t output_rows = output.shape().dimensions(0);
  std::vector<Metadata> all;
  for (const std::vector<Literal>& member : members) {
    all.push_back(
        {Integers(member[kInputOffsets]), Integers(member[kSendSizes]),
         Integers(member[kOutputOffsets]), Integers(member[kRecvSizes])});
  }
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(
        CheckSends(op, devices, i, all[i], k, input_rows, output_rows));
    RETURN_IF_ERROR(CheckReceives(op, devices, i, all, k));
  }
  // The result starts as the output; member j's updates for this rank
  // land in rank then update order.
  const int64_t row_bytes =
      input_rows == 0 ? 0 : members[0][kInput].size_bytes() / input_rows;
  Literal result = output;
  char* to = static_cast<char*>(result.untyped_data());
  for (int64_t j = 0; j < n; ++j) {
    const char* from =
        static_cast<const char*>(members[j][kInput].untyped_data());
    for (int64_t u = 0; u < k; ++u) {
      const int64_t e = rank * k + u;
      if (all[j].send_sizes[e] == 0) continue;
      std::memcpy(to + all[j].output_offsets[e] * row_bytes,
                  from + all[j].input_offsets[e] * row_bytes,
                  all[j].send_sizes[e] * row_bytes);
    }
  }
  return result;
}

}  // namespace mxla::hlo_evaluator_internal
