#include "passes/pair_sends_and_recvs.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/replica_groups.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

bool IsDeviceTransfer(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kSend &&
      instruction.opcode() != HloOpcode::kRecv) {
    return false;
  }
  const auto* host =
      instruction.attributes().Get<std::string>(AttrId::kIsHostTransfer);
  return host == nullptr || *host != "true";
}

// The send and the recv of one channel in one computation.
struct Pair {
  HloInstruction* send = nullptr;
  HloInstruction* recv = nullptr;
};

absl::Status Error(const HloInstruction& op, int64_t channel,
                   absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      HloOpcodeString(op.opcode()), " '", op.name(), "' (channel_id ",
      channel, ", computation '", op.parent()->name(), "'): ", what));
}

// The op's only user, which must be its -done op.
absl::StatusOr<HloInstruction*> DoneOf(const HloInstruction& op,
                                       int64_t channel, HloOpcode done) {
  if (op.users().size() != 1 || op.users()[0]->opcode() != done ||
      op.parent()->root_instruction() == &op) {
    return Error(op, channel,
                 absl::StrCat("mxla pairs a send and a recv between devices "
                              "only when each is used by its ",
                              HloOpcodeString(done), " alone"));
  }
  return op.users()[0];
}

// Whether `value` depends on `target` (or is it).
bool DependsOn(const HloInstruction* value, const HloInstruction* target) {
  std::vector<const HloInstruction*> stack = {value};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* next = stack.back();
    stack.pop_back();
    if (next == target) return true;
    if (!seen.insert(next).second) continue;
    for (const HloInstruction* operand : next->operands()) {
      stack.push_back(operand);
    }
  }
  return false;
}

// The pair's source_target_pairs: the recv's or the send's, equal when
// both have them.
absl::StatusOr<std::vector<int64_t>> PairsOf(const Pair& pair,
                                             int64_t channel) {
  const auto* sent = pair.send->attributes().Get<std::vector<int64_t>>(
      AttrId::kSourceTargetPairs);
  const auto* received = pair.recv->attributes().Get<std::vector<int64_t>>(
      AttrId::kSourceTargetPairs);
  if (sent == nullptr && received == nullptr) {
    return Error(*pair.send, channel,
                 "no source_target_pairs on it or its recv (XLA's text "
                 "gives them as the frontend attribute "
                 "_xla_send_recv_source_target_pairs)");
  }
  if (sent != nullptr && received != nullptr && *sent != *received) {
    return Error(*pair.send, channel,
                 absl::StrCat("its source_target_pairs ",
                              IdGroupsToString(DecodeIdGroups(*sent)),
                              " differ from its recv's ",
                              IdGroupsToString(DecodeIdGroups(*received))));
  }
  return sent != nullptr ? *sent : *received;
}

// Replaces one pair by a collective-permute.
absl::Status Rewrite(HloComputation& computation, const Pair& pair,
                     int64_t channel) {
  ASSIGN_OR_RETURN(HloInstruction * send_done,
                   DoneOf(*pair.send, channel, HloOpcode::kSendDone));
  ASSIGN_OR_RETURN(HloInstruction * recv_done,
                   DoneOf(*pair.recv, channel, HloOpcode::kRecvDone));
  ASSIGN_OR_RETURN(const std::vector<int64_t> pairs, PairsOf(pair, channel));
  HloInstruction* data = pair.send->mutable_operand(0);
  const Shape& received = pair.recv->shape().tuple_shapes(0);
  if (data->shape() != received) {
    return Error(*pair.send, channel,
                 absl::StrCat("sends ", data->shape().ToString(),
                              " but its recv receives ", received.ToString()));
  }
  if (DependsOn(data, recv_done)) {
    return Error(*pair.send, channel,
                 "its data depends on its own recv, so the pair cannot be "
                 "one collective-permute");
  }
  auto permute = HloInstruction::CreateGeneric(HloOpcode::kCollectivePermute,
                                               data->shape(), {data});
  permute->mutable_attributes().Set(AttrId::kSourceTargetPairs, pairs);
  permute->mutable_attributes().Set(AttrId::kChannelId, channel);
  permute->set_metadata(pair.recv->metadata());
  HloInstruction* permuted = computation.AddInstruction(std::move(permute));
  HloInstruction* received_pair =
      computation.AddInstruction(HloInstruction::CreateTuple(
          {permuted, pair.recv->mutable_operand(0)}));
  computation.ReplaceInstruction(recv_done, received_pair);
  computation.ReplaceInstruction(send_done, pair.send->mutable_operand(1));
  return computation.RemoveInstructions(
      {send_done, recv_done, pair.send, pair.recv});
}

// The sends and recvs of one channel in one computation.
struct Channel {
  std::vector<HloInstruction*> sends, recvs;
};

const std::vector<int64_t>* PeersOf(const HloInstruction& op) {
  return op.attributes().Get<std::vector<int64_t>>(AttrId::kSourceTargetPairs);
}

// A channel's pairs: its send and recv when it has one of each, else each
// send with the recv of the same source_target_pairs (XLA's pipelined
// loops use one channel for transfers to different peers).
absl::StatusOr<std::vector<Pair>> PairsOfChannel(int64_t channel,
                                                 const Channel& ops) {
  if (ops.sends.empty() || ops.recvs.empty()) {
    const bool sends = !ops.sends.empty();
    const HloInstruction& alone = sends ? *ops.sends[0] : *ops.recvs[0];
    return Error(alone, channel,
                 absl::StrCat("no ", sends ? "recv" : "send",
                              " of its channel in its computation; mxla "
                              "runs a send and a recv between devices as "
                              "one collective-permute"));
  }
  if (ops.sends.size() == 1 && ops.recvs.size() == 1) {
    return std::vector<Pair>{{ops.sends[0], ops.recvs[0]}};
  }
  std::map<std::vector<int64_t>, Pair> by_peers;
  for (const std::vector<HloInstruction*>* kind : {&ops.sends, &ops.recvs}) {
    for (HloInstruction* op : *kind) {
      const std::vector<int64_t>* peers = PeersOf(*op);
      if (peers == nullptr) {
        return Error(*op, channel,
                     "one of several sends and recvs of the channel, with "
                     "no source_target_pairs to match it to its partner by");
      }
      Pair& pair = by_peers[*peers];
      HloInstruction*& slot =
          op->opcode() == HloOpcode::kSend ? pair.send : pair.recv;
      if (slot != nullptr) {
        return Error(*op, channel,
                     absl::StrCat("a second ", HloOpcodeString(op->opcode()),
                                  " of the channel to the peers ",
                                  IdGroupsToString(DecodeIdGroups(*peers)),
                                  ", after '", slot->name(), "'"));
      }
      slot = op;
    }
  }
  std::vector<Pair> pairs;
  for (const auto& [peers, pair] : by_peers) {
    if (pair.send == nullptr || pair.recv == nullptr) {
      const HloInstruction& alone = pair.send ? *pair.send : *pair.recv;
      return Error(alone, channel,
                   absl::StrCat("no ", pair.send ? "recv" : "send",
                                " of its channel to the peers ",
                                IdGroupsToString(DecodeIdGroups(peers)),
                                " in its computation"));
    }
    pairs.push_back(pair);
  }
  return pairs;
}

absl::StatusOr<bool> PairIn(HloComputation& computation) {
  std::map<int64_t, Channel> channels;
  for (HloInstruction* instruction : computation.instructions()) {
    if (!IsDeviceTransfer(*instruction)) continue;
    const auto* id = instruction->attributes().Get<int64_t>(AttrId::kChannelId);
    Channel& ops = channels[id == nullptr ? 0 : *id];
    (instruction->opcode() == HloOpcode::kSend ? ops.sends : ops.recvs)
        .push_back(instruction);
  }
  for (const auto& [channel, ops] : channels) {
    ASSIGN_OR_RETURN(const std::vector<Pair> pairs,
                     PairsOfChannel(channel, ops));
    for (const Pair& pair : pairs) {
      RETURN_IF_ERROR(Rewrite(computation, pair, channel));
    }
  }
  return !channels.empty();
}

}  // namespace

absl::StatusOr<bool> PairSendsAndRecvsPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    ASSIGN_OR_RETURN(const bool paired, PairIn(*computation));
    changed = changed || paired;
  }
  return changed;
}

}  // namespace mxla
