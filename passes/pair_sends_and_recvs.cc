#include "passes/pair_sends_and_recvs.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/replica_groups.h"
#include "ir/status_macros.h"
#include "passes/call_inliner.h"

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

bool HoldsTransfer(const HloComputation& computation) {
  for (const HloInstruction* op : computation.instructions()) {
    if (IsDeviceTransfer(*op)) return true;
  }
  return false;
}

// One async-start wrapping a send or recv, with its async-update and
// async-done chain, becomes a call of the wrapped computation, inlined:
// the transfer then pairs in the start's computation (XLA wraps send and
// recv to run them asynchronously; mxla's pair is one collective-permute
// either way).
absl::Status Unwrap(HloComputation& computation, HloInstruction* start) {
  std::vector<HloInstruction*> chain = {start};
  while (chain.back()->opcode() != HloOpcode::kAsyncDone) {
    const HloInstruction* last = chain.back();
    if (last->users().size() != 1 ||
        (last->users()[0]->opcode() != HloOpcode::kAsyncUpdate &&
         last->users()[0]->opcode() != HloOpcode::kAsyncDone)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "async-start '", start->name(), "' (computation '",
          computation.name(), "') wraps a send or recv between devices, "
          "but '", last->name(), "' is used other than by one async-update "
          "or async-done"));
    }
    chain.push_back(last->users()[0]);
  }
  HloComputation* callee = start->called_computations()[0];
  auto call = HloInstruction::CreateGeneric(
      HloOpcode::kCall, callee->root_instruction()->shape(), start->operands());
  call->set_called_computations({callee});
  HloInstruction* inlined = computation.AddInstruction(std::move(call));
  computation.ReplaceInstruction(chain.back(), inlined);
  RETURN_IF_ERROR(computation.RemoveInstructions(
      absl::flat_hash_set<HloInstruction*>(chain.begin(), chain.end())));
  return InlineCall(computation, inlined);
}

absl::StatusOr<bool> UnwrapAsyncTransfers(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    std::vector<HloInstruction*> starts;
    for (HloInstruction* op : computation->instructions()) {
      if (op->opcode() == HloOpcode::kAsyncStart &&
          !op->called_computations().empty() &&
          HoldsTransfer(*op->called_computations()[0])) {
        starts.push_back(op);
      }
    }
    for (HloInstruction* start : starts) {
      RETURN_IF_ERROR(Unwrap(*computation, start));
      changed = true;
    }
  }
  return changed;
}

// The computations the entry runs, directly or through others (a wrapped
// computation whose async-start was unwrapped is no longer one of them).
std::vector<HloComputation*> ReachableComputations(const HloModule& module) {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<HloComputation*> seen;
  std::vector<HloComputation*> stack = {module.entry_computation()};
  while (!stack.empty()) {
    HloComputation* next = stack.back();
    stack.pop_back();
    if (next == nullptr || !seen.insert(next).second) continue;
    order.push_back(next);
    for (const HloInstruction* op : next->instructions()) {
      for (HloComputation* callee : op->called_computations()) {
        stack.push_back(callee);
      }
    }
  }
  return order;
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

// The context tuple a send or recv gives its -done op, (data, u32[],
// token[]) as declared, holding `data` and `token`.
HloInstruction* Context(HloComputation& computation, const HloInstruction& op,
                        HloInstruction* data, HloInstruction* token) {
  HloInstruction* zero = computation.AddInstruction(
      HloInstruction::CreateConstant(Literal(op.shape().tuple_shapes(1))));
  return computation.AddInstruction(
      HloInstruction::CreateTuple({data, zero, token}));
}

// Replaces one pair by a collective-permute: the recv's context holds the
// permuted data, the send's its own data. The -done ops, wherever they are
// (the pipelined loops of XLA pass the contexts through the loop state),
// read them later (ReplaceDones).
absl::Status Rewrite(HloComputation& computation, const Pair& pair,
                     int64_t channel) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> pairs, PairsOf(pair, channel));
  HloInstruction* data = pair.send->mutable_operand(0);
  const Shape& received = pair.recv->shape().tuple_shapes(0);
  if (data->shape() != received) {
    return Error(*pair.send, channel,
                 absl::StrCat("sends ", data->shape().ToString(),
                              " but its recv receives ", received.ToString()));
  }
  if (DependsOn(data, pair.recv)) {
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
  computation.ReplaceInstruction(
      pair.recv, Context(computation, *pair.recv, permuted,
                         pair.recv->mutable_operand(0)));
  computation.ReplaceInstruction(
      pair.send,
      Context(computation, *pair.send, data, pair.send->mutable_operand(1)));
  return computation.RemoveInstructions({pair.send, pair.recv});
}

// The sends and recvs of one channel in one computation.
struct Channel {
  std::vector<HloInstruction*> sends, recvs;
};

const std::vector<int64_t>* PeersOf(const HloInstruction& op) {
  return op.attributes().Get<std::vector<int64_t>>(AttrId::kSourceTargetPairs);
}

// Every device send and recv of the module, by channel (for the
// messages that say where a partner is, and for sends to nobody).
using ChannelIndex = std::map<int64_t, std::vector<const HloInstruction*>>;

int64_t ChannelOf(const HloInstruction& op) {
  const auto* id = op.attributes().Get<int64_t>(AttrId::kChannelId);
  return id == nullptr ? 0 : *id;
}

// Why `alone` (a send or a recv) has no partner in its computation, naming
// a partner of its channel elsewhere if there is one.
absl::Status NoPartner(const HloInstruction& alone, int64_t channel,
                       const ChannelIndex& index) {
  const HloOpcode wanted = alone.opcode() == HloOpcode::kSend
                               ? HloOpcode::kRecv
                               : HloOpcode::kSend;
  std::string elsewhere;
  for (const HloInstruction* op : index.at(channel)) {
    if (op->opcode() != wanted || op->parent() == alone.parent()) continue;
    elsewhere = absl::StrCat(" (its ", HloOpcodeString(wanted), " '",
                             op->name(), "' is in computation '",
                             op->parent()->name(), "')");
    break;
  }
  return Error(alone, channel,
               absl::StrCat("no ", HloOpcodeString(wanted),
                            " of its channel in its computation", elsewhere,
                            "; mxla runs a send and a recv between devices "
                            "as one collective-permute"));
}

// A channel's pairs: its send and recv when it has one of each, else each
// send with the recv of the same source_target_pairs (XLA's pipelined
// loops use one channel for transfers to different peers).
absl::StatusOr<std::vector<Pair>> PairsOfChannel(int64_t channel,
                                                 const Channel& ops,
                                                 const ChannelIndex& index) {
  if (ops.sends.empty() || ops.recvs.empty()) {
    const bool sends = !ops.sends.empty();
    return NoPartner(sends ? *ops.sends[0] : *ops.recvs[0], channel, index);
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

// A send with no source_target_pairs on a channel that nothing in the
// module receives from sends to no device (XLA's send then moves nothing):
// its context holds its data, and nothing else happens.
bool SendsToNobody(const HloInstruction& op, int64_t channel,
                   const ChannelIndex& index) {
  if (op.opcode() != HloOpcode::kSend || PeersOf(op) != nullptr) return false;
  for (const HloInstruction* other : index.at(channel)) {
    if (other->opcode() == HloOpcode::kRecv) return false;
  }
  return true;
}

// The channels each computation transfers on, itself or through the
// computations it calls.
using ChannelReach = std::map<const HloComputation*, std::set<int64_t>>;

const std::set<int64_t>& ChannelsReached(const HloComputation& computation,
                                         ChannelReach& reach) {
  if (auto it = reach.find(&computation); it != reach.end()) return it->second;
  std::set<int64_t> channels;
  for (const HloInstruction* op : computation.instructions()) {
    if (IsDeviceTransfer(*op)) channels.insert(ChannelOf(*op));
    for (const HloComputation* callee : op->called_computations()) {
      const std::set<int64_t>& inner = ChannelsReached(*callee, reach);
      channels.insert(inner.begin(), inner.end());
    }
  }
  return reach[&computation] = std::move(channels);
}

// XLA matches a channel's sends and recvs in the order they are issued. A
// pair issued together in one computation is one permute only if every op
// there that runs other transfers of the channel (a loop, a call) comes
// after both or before both; otherwise which send meets which recv
// depends on that order, and the pair is refused.
absl::Status CheckIssuedTogether(const HloComputation& computation,
                                 const Pair& pair, int64_t channel,
                                 ChannelReach& reach) {
  for (const HloInstruction* op : computation.instructions()) {
    bool transfers = false;
    for (const HloComputation* callee : op->called_computations()) {
      transfers = transfers || ChannelsReached(*callee, reach).contains(channel);
    }
    if (!transfers) continue;
    const bool after = DependsOn(op, pair.send) && DependsOn(op, pair.recv);
    const bool before = DependsOn(pair.send, op) && DependsOn(pair.recv, op);
    if (!after && !before) {
      return Error(*pair.send, channel,
                   absl::StrCat("its recv '", pair.recv->name(),
                                "' and it are not both before or both after '",
                                op->name(), "', which transfers on the same "
                                "channel; XLA matches sends and recvs in the "
                                "order they are issued"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> PairIn(HloComputation& computation,
                            const ChannelIndex& index, ChannelReach& reach) {
  std::map<int64_t, Channel> channels;
  bool changed = false;
  for (HloInstruction* instruction : computation.instructions()) {
    if (!IsDeviceTransfer(*instruction)) continue;
    const int64_t channel = ChannelOf(*instruction);
    if (SendsToNobody(*instruction, channel, index)) {
      computation.ReplaceInstruction(
          instruction,
          Context(computation, *instruction, instruction->mutable_operand(0),
                  instruction->mutable_operand(1)));
      RETURN_IF_ERROR(computation.RemoveInstruction(instruction));
      changed = true;
      continue;
    }
    Channel& ops = channels[channel];
    (instruction->opcode() == HloOpcode::kSend ? ops.sends : ops.recvs)
        .push_back(instruction);
  }
  std::vector<std::pair<int64_t, Pair>> pairs;
  for (const auto& [channel, ops] : channels) {
    ASSIGN_OR_RETURN(const std::vector<Pair> of_channel,
                     PairsOfChannel(channel, ops, index));
    for (const Pair& pair : of_channel) {
      RETURN_IF_ERROR(CheckIssuedTogether(computation, pair, channel, reach));
      pairs.push_back({channel, pair});
    }
  }
  for (const auto& [channel, pair] : pairs) {
    RETURN_IF_ERROR(Rewrite(computation, pair, channel));
  }
  return changed || !channels.empty();
}

// The -done ops read the contexts Rewrite made: send-done gives the token,
// recv-done the data and the token.
absl::Status ReplaceDones(HloComputation& computation) {
  for (HloInstruction* done : computation.instructions()) {
    const HloOpcode opcode = done->opcode();
    if (opcode != HloOpcode::kSendDone && opcode != HloOpcode::kRecvDone) {
      continue;
    }
    HloInstruction* context = done->mutable_operand(0);
    auto element = [&](int64_t i) {
      return computation.AddInstruction(HloInstruction::CreateGetTupleElement(
          context->shape().tuple_shapes(i), context, i));
    };
    HloInstruction* token = element(2);
    HloInstruction* value =
        opcode == HloOpcode::kSendDone
            ? token
            : computation.AddInstruction(
                  HloInstruction::CreateTuple({element(0), token}));
    computation.ReplaceInstruction(done, value);
    RETURN_IF_ERROR(computation.RemoveInstruction(done));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> PairSendsAndRecvsPass::Run(HloModule& module) {
  ASSIGN_OR_RETURN(bool changed, UnwrapAsyncTransfers(module));
  const std::vector<HloComputation*> computations =
      ReachableComputations(module);
  ChannelIndex index;
  for (HloComputation* computation : computations) {
    for (const HloInstruction* op : computation->instructions()) {
      if (IsDeviceTransfer(*op)) index[ChannelOf(*op)].push_back(op);
    }
  }
  if (index.empty() && !changed) return false;
  ChannelReach reach;
  for (HloComputation* computation : computations) {
    ChannelsReached(*computation, reach);  // before any transfer goes
  }
  for (HloComputation* computation : computations) {
    RETURN_IF_ERROR(PairIn(*computation, index, reach).status());
  }
  for (HloComputation* computation : computations) {
    RETURN_IF_ERROR(ReplaceDones(*computation));
  }
  return true;
}

}  // namespace mxla
