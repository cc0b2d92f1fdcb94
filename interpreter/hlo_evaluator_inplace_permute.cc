// XLA's in-place collective-permute(input, output, input_start_indices,
// output_start_indices) as one device computes it: each buffer's slice of
// `slice_sizes` at this device's input start indices goes to its targets
// (all buffers' slices in one Permute, so the calls stay matched), and
// the slices from the source are written into this device's output at
// its output start indices; without a source, the output as it is. Start
// indices are clamped so the slice fits, as dynamic-slice and
// dynamic-update-slice clamp (XLA leaves out-of-range starts to the
// backend).
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/collective_groups.h"
#include "ir/communicator.h"
#include "ir/replica_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// One buffer's operands.
struct Buffer {
  const Literal* input;
  const Literal* output;
  const Literal* input_offset;   // a tuple of scalars
  const Literal* output_offset;  // a tuple of scalars
};

std::vector<Buffer> BuffersOf(absl::Span<const Literal* const> operands) {
  if (operands[0]->shape().IsArray()) {
    return {{operands[0], operands[1], operands[2], operands[3]}};
  }
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < operands[0]->shape().tuple_shapes().size(); ++i) {
    buffers.push_back(
        {&operands[0]->tuple_element(i), &operands[1]->tuple_element(i),
         &operands[2]->tuple_element(i), &operands[3]->tuple_element(i)});
  }
  return buffers;
}

// `array` followed by the scalars of `offset`: a dynamic-slice's or
// dynamic-update-slice's operands.
std::vector<const Literal*> WithStarts(std::vector<const Literal*> arrays,
                                       const Literal& offset) {
  for (size_t d = 0; d < offset.shape().tuple_shapes().size(); ++d) {
    arrays.push_back(&offset.tuple_element(d));
  }
  return arrays;
}

}  // namespace

absl::StatusOr<Literal> EvaluateInPlacePermute(
    const HloInstruction& op, const PermutePeers& peers,
    Communicator* communicator, absl::Span<const Literal* const> operands) {
  const auto* sizes_attribute =
      op.attributes().Get<std::vector<int64_t>>(AttrId::kPermuteSliceSizes);
  RET_CHECK(sizes_attribute != nullptr && operands.size() == 4, op.name());
  const IdGroups sizes = DecodeIdGroups(*sizes_attribute);
  const std::vector<Buffer> buffers = BuffersOf(operands);
  RET_CHECK(sizes.size() == buffers.size(), op.name());
  std::vector<Literal> slices;
  std::vector<char> send;
  for (size_t i = 0; i < buffers.size(); ++i) {
    ASSIGN_OR_RETURN(
        Literal slice,
        EvaluateDynamicSlice(
            WithStarts({buffers[i].input}, *buffers[i].input_offset),
            sizes[i]));
    const char* bytes = static_cast<const char*>(slice.untyped_data());
    send.insert(send.end(), bytes, bytes + slice.size_bytes());
    slices.push_back(std::move(slice));
  }
  std::vector<char> received(send.size());
  if (communicator == nullptr) {
    if (peers.source.has_value()) received = send;
  } else {
    RETURN_IF_ERROR(communicator->Permute(
        op.name(), ConstBytes(send.data(), send.size()), peers.targets,
        peers.source, MutableBytes(received.data(), received.size())));
  }
  std::vector<Literal> results;
  int64_t at = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!peers.source.has_value()) {
      results.push_back(*buffers[i].output);
      continue;
    }
    Literal update(slices[i].shape());
    std::memcpy(update.untyped_data(), received.data() + at,
                update.size_bytes());
    at += update.size_bytes();
    ASSIGN_OR_RETURN(
        Literal written,
        EvaluateDynamicUpdateSlice(WithStarts(
            {buffers[i].output, &update}, *buffers[i].output_offset)));
    results.push_back(std::move(written));
  }
  if (operands[0]->shape().IsArray()) return std::move(results[0]);
  return LiteralUtil::MakeTuple(std::move(results));
}

}  // namespace mxla::hlo_evaluator_internal
