#include "tools/ragged_arguments.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/collective_groups.h"
#include "ir/hlo_instruction.h"
#include "ir/primitive_type.h"

namespace mxla::tools {
namespace {

// Operands 2..5 of ragged-all-to-all, in operand order.
enum Role { kInputOffsets, kSendSizes, kOutputOffsets, kRecvSizes };

// The entry parameter number `operand` passes on unchanged in value and
// order, if any.
std::optional<int64_t> ParameterOf(const HloInstruction* operand) {
  while (operand->opcode() == HloOpcode::kCopy ||
         operand->opcode() == HloOpcode::kReshape ||
         operand->opcode() == HloOpcode::kBitcast ||
         operand->opcode() == HloOpcode::kConvert) {
    operand = operand->operand(0);
  }
  if (operand->opcode() != HloOpcode::kParameter) return std::nullopt;
  return operand->parameter_number();
}

void WriteIntegers(Literal& literal, const std::vector<int64_t>& values) {
  primitive_util::ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          T* data = static_cast<T*>(literal.untyped_data());
          for (size_t i = 0; i < values.size(); ++i) {
            data[i] = static_cast<T>(values[i]);
          }
        }
      });
}

// One group's plan: rows[i][j][u] is how many rows the member of rank i
// sends the member of rank j in update u. Every sender's n·k updates fit
// its input and every receiver's n·k fit its output, so each is at most
// min(input, output rows) / (n·k); the sizes vary with i, j and u (zero
// among them) so that a mixed-up peer or update shows.
using Plan = std::vector<std::vector<std::vector<int64_t>>>;

Plan PlanRows(int64_t n, int64_t k, int64_t input_rows, int64_t output_rows) {
  const int64_t most = std::min(input_rows, output_rows) / (n * k);
  Plan rows(n, std::vector<std::vector<int64_t>>(n, std::vector<int64_t>(k)));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t u = 0; u < k; ++u) {
        rows[i][j][u] = (i + 2 * j + 3 * u + 1) % (most + 1);
      }
    }
  }
  return rows;
}

// The metadata of the member of rank i, entry j·k + u for peer j, update
// u (XLA's layout): its updates packed in its input in (peer, update)
// order, and each receiver's updates packed in its output in (sender,
// update) order.
std::array<std::vector<int64_t>, 4> MetadataOf(const Plan& rows, int64_t i) {
  const int64_t n = rows.size();
  const int64_t k = rows[0][0].size();
  std::array<std::vector<int64_t>, 4> m;
  for (std::vector<int64_t>& values : m) values.resize(n * k);
  int64_t input_offset = 0;
  for (int64_t j = 0; j < n; ++j) {
    int64_t output_offset = 0;  // in j's output, before i's updates
    for (int64_t s = 0; s < i; ++s) {
      for (int64_t u = 0; u < k; ++u) output_offset += rows[s][j][u];
    }
    for (int64_t u = 0; u < k; ++u) {
      const int64_t e = j * k + u;
      m[kInputOffsets][e] = input_offset;
      m[kSendSizes][e] = rows[i][j][u];
      m[kOutputOffsets][e] = output_offset;
      m[kRecvSizes][e] = rows[j][i][u];
      input_offset += rows[i][j][u];
      output_offset += rows[i][j][u];
    }
  }
  return m;
}

// The op's four metadata parameters, if they are distinct integer arrays
// of one element count, none written for another op.
std::optional<std::array<int64_t, 4>> MetadataParameters(
    const HloInstruction& op, const std::vector<Literal>& arguments,
    const std::set<int64_t>& written) {
  std::array<int64_t, 4> numbers;
  for (int role = 0; role < 4; ++role) {
    std::optional<int64_t> number = ParameterOf(op.operand(2 + role));
    if (!number || written.count(*number) ||
        *number >= static_cast<int64_t>(arguments.size())) {
      return std::nullopt;
    }
    const Literal& argument = arguments[*number];
    if (!argument.shape().IsArray() ||
        !primitive_util::IsIntegralType(argument.shape().element_type()) ||
        argument.element_count() !=
            arguments[role == 0 ? *number : numbers[0]].element_count()) {
      return std::nullopt;
    }
    numbers[role] = *number;
  }
  if (std::set<int64_t>(numbers.begin(), numbers.end()).size() != 4) {
    return std::nullopt;
  }
  return numbers;
}

}  // namespace

void FillRaggedAllToAllArguments(const HloComputation& entry,
                                 const DeviceAssignment& assignment,
                                 std::vector<std::vector<Literal>>& arguments) {
  if (static_cast<int64_t>(arguments.size()) != assignment.device_count()) {
    return;
  }
  std::set<int64_t> written;
  for (const HloInstruction* op : entry.instructions()) {
    if (op->opcode() != HloOpcode::kRaggedAllToAll) continue;
    const std::optional<std::array<int64_t, 4>> numbers =
        MetadataParameters(*op, arguments[0], written);
    absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(*op);
    if (!numbers || !mode.ok()) continue;
    absl::StatusOr<std::vector<std::vector<int64_t>>> groups =
        ParticipatingDeviceGroups(*op, assignment, ReplicaGroupsOf(*op), *mode);
    if (!groups.ok()) continue;
    const int64_t count = arguments[0][(*numbers)[0]].element_count();
    const int64_t input_rows = op->operand(0)->shape().dimensions(0);
    const int64_t output_rows = op->operand(1)->shape().dimensions(0);
    for (const std::vector<int64_t>& group : *groups) {
      const int64_t n = group.size();
      if (count == 0 || count % n != 0) continue;
      const Plan rows = PlanRows(n, count / n, input_rows, output_rows);
      for (int64_t i = 0; i < n; ++i) {
        const std::array<std::vector<int64_t>, 4> m = MetadataOf(rows, i);
        for (int role = 0; role < 4; ++role) {
          WriteIntegers(arguments[group[i]][(*numbers)[role]], m[role]);
        }
      }
    }
    written.insert(numbers->begin(), numbers->end());
  }
}

}  // namespace mxla::tools
