#include "runtime/collective_ops.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_instruction.h"
#include "ir/narrow_float.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla {
namespace {

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) product *= dims[i];
  return product;
}

// The array as `outer` blocks of `inner` bytes along `dimension`.
struct Blocks {
  int64_t outer;
  int64_t inner;
};
Blocks BlocksAlong(const ArrayBytes& array, int64_t dimension) {
  return {Product(array.dims, 0, dimension),
          Product(array.dims, dimension, array.dims.size()) *
              array.element_bytes};
}

// "[2,3] (4-byte elements)".
std::string DimsText(const ArrayBytes& array) {
  return absl::StrCat("[", absl::StrJoin(array.dims, ","), "] (",
                      array.element_bytes, "-byte elements)");
}

// The op, what is wrong, and the group: XLA's shape rules hold at compile
// time for the device count the module was compiled for; this catches a
// group that does not match it at run time.
absl::Status ShapeError(const CollectiveCall& call, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(call.op, ": ", what, "; its group {",
                   absl::StrJoin(call.group, ","), "} has ", call.group.size(),
                   " devices"));
}

// Piece k of `array` split into `parts` along `dimension`: block o of the
// piece is bytes [k·inner/parts, (k+1)·inner/parts) of block o. Packed
// into `out` (outer · inner/parts bytes).
void PackPiece(const ArrayBytes& array, Blocks blocks, int64_t parts,
               int64_t k, char* out) {
  const int64_t piece = blocks.inner / parts;
  for (int64_t o = 0; o < blocks.outer; ++o) {
    std::memcpy(out + o * piece, array.data + o * blocks.inner + k * piece,
                piece);
  }
}

// The inverse: `pieces[j]` (each outer · inner/parts bytes) become the
// blocks' j-th parts.
void UnpackPieces(const std::vector<const char*>& pieces, Blocks blocks,
                  char* out) {
  const int64_t parts = pieces.size();
  const int64_t piece = blocks.inner / parts;
  for (int64_t o = 0; o < blocks.outer; ++o) {
    for (int64_t j = 0; j < parts; ++j) {
      std::memcpy(out + o * blocks.inner + j * piece, pieces[j] + o * piece,
                  piece);
    }
  }
}

template <typename T>
std::optional<ElementCombiner> CombinerOf(HloOpcode opcode, bool swapped) {
  std::optional<ElementCombiner> combiner;
  auto make = [&](auto op, auto load, auto store) {
    combiner = ElementCombiner{
        static_cast<int64_t>(sizeof(T)),
        [op, load, store, swapped](char* accumulator, const char* other,
                                   int64_t elements) {
          T* a = reinterpret_cast<T*>(accumulator);
          const T* b = reinterpret_cast<const T*>(other);
          for (int64_t i = 0; i < elements; ++i) {
            a[i] = store(swapped ? op(load(b[i]), load(a[i]))
                                 : op(load(a[i]), load(b[i])));
          }
          return absl::OkStatus();
        }};
  };
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    semantics::WithBinaryOp<float>(opcode, [&](auto op) {
      make(op, [](T x) { return static_cast<float>(x); },
           [](float x) { return T(x); });
    });
  } else {
    semantics::WithBinaryOp<T>(opcode, [&](auto op) {
      make(op, [](T x) { return x; }, [](T x) { return x; });
    });
  }
  return combiner;
}

}  // namespace

int64_t ArrayBytes::size() const {
  return Product(dims, 0, dims.size()) * element_bytes;
}

absl::Status GatherAlong(Communicator& communicator, const CollectiveCall& call,
                         const ArrayBytes& operand, int64_t dimension,
                         const ArrayBytes& result) {
  const int64_t members = call.group.size();
  const int64_t bytes = operand.size();
  if (result.size() != bytes * members) {
    return ShapeError(
        call, absl::StrCat("all-gather result ", DimsText(result), " is not ",
                           members, " times the operand ", DimsText(operand),
                           " along dimension ", dimension));
  }
  const Blocks blocks = BlocksAlong(operand, dimension);
  const ConstBytes send(operand.data, bytes);
  std::vector<MutableBytes> recv;
  std::vector<char> staging;
  if (blocks.outer == 1) {
    for (int64_t j = 0; j < members; ++j) {
      recv.push_back(MutableBytes(result.data + j * bytes, bytes));
    }
    return communicator.AllGather(call, send, recv);
  }
  staging.resize(bytes * members);
  std::vector<const char*> pieces;
  for (int64_t j = 0; j < members; ++j) {
    recv.push_back(MutableBytes(staging.data() + j * bytes, bytes));
    pieces.push_back(staging.data() + j * bytes);
  }
  RETURN_IF_ERROR(communicator.AllGather(call, send, recv));
  UnpackPieces(pieces, {blocks.outer, blocks.inner * members}, result.data);
  return absl::OkStatus();
}

absl::Status ReduceScatterAlong(Communicator& communicator,
                                const CollectiveCall& call,
                                const ArrayBytes& operand, int64_t dimension,
                                const ElementCombiner& combiner,
                                const ArrayBytes& result) {
  const int64_t members = call.group.size();
  const Blocks blocks = BlocksAlong(operand, dimension);
  const int64_t piece_bytes = result.size();
  // Whole elements per piece: the dimension itself splits evenly (bytes
  // alone would let a piece end inside an element).
  if (piece_bytes * members != operand.size() ||
      operand.dims[dimension] % members != 0) {
    return ShapeError(
        call, absl::StrCat("reduce-scatter operand ", DimsText(operand),
                           " is not ", members, " times the result ",
                           DimsText(result), " along dimension ", dimension));
  }
  // Piece k of every member arrives at rank k, then is reduced in rank
  // order into the result.
  std::vector<char> packed;
  std::vector<ConstBytes> send;
  if (blocks.outer == 1) {
    for (int64_t k = 0; k < members; ++k) {
      send.push_back(ConstBytes(operand.data + k * piece_bytes, piece_bytes));
    }
  } else {
    packed.resize(operand.size());
    for (int64_t k = 0; k < members; ++k) {
      PackPiece(operand, blocks, members, k, packed.data() + k * piece_bytes);
      send.push_back(ConstBytes(packed.data() + k * piece_bytes, piece_bytes));
    }
  }
  std::vector<char> received(piece_bytes * members);
  std::vector<MutableBytes> recv;
  for (int64_t j = 0; j < members; ++j) {
    recv.push_back(MutableBytes(received.data() + j * piece_bytes, piece_bytes));
  }
  RETURN_IF_ERROR(communicator.AllToAll(call, send, recv));
  const int64_t elements = piece_bytes / combiner.element_bytes;
  std::memcpy(result.data, received.data(), piece_bytes);
  for (int64_t j = 1; j < members; ++j) {
    RETURN_IF_ERROR(combiner.combine(result.data, recv[j].data(), elements));
  }
  return absl::OkStatus();
}

absl::Status AllToAllAlong(Communicator& communicator,
                           const CollectiveCall& call,
                           const ArrayBytes& operand, int64_t split_dimension,
                           int64_t concat_dimension, const ArrayBytes& result) {
  const int64_t members = call.group.size();
  const Blocks split = BlocksAlong(operand, split_dimension);
  const int64_t piece_bytes = operand.size() / members;
  if (result.size() != operand.size() ||
      operand.dims[split_dimension] % members != 0) {
    return ShapeError(
        call, absl::StrCat("all-to-all operand ", DimsText(operand),
                           " does not split into ", members,
                           " pieces along dimension ", split_dimension,
                           " with the result ", DimsText(result)));
  }
  std::vector<char> packed;
  std::vector<ConstBytes> send;
  if (split.outer == 1) {
    for (int64_t k = 0; k < members; ++k) {
      send.push_back(ConstBytes(operand.data + k * piece_bytes, piece_bytes));
    }
  } else {
    packed.resize(operand.size());
    for (int64_t k = 0; k < members; ++k) {
      PackPiece(operand, split, members, k, packed.data() + k * piece_bytes);
      send.push_back(ConstBytes(packed.data() + k * piece_bytes, piece_bytes));
    }
  }
  // A piece has the operand's dims with the split one divided; the result
  // concatenates the pieces along the concat dimension.
  std::vector<int64_t> piece_dims(operand.dims.begin(), operand.dims.end());
  piece_dims[split_dimension] /= members;
  const Blocks concat = BlocksAlong(
      {nullptr, piece_dims, operand.element_bytes}, concat_dimension);
  std::vector<char> staging;
  std::vector<MutableBytes> recv;
  std::vector<const char*> pieces;
  if (concat.outer == 1) {
    for (int64_t j = 0; j < members; ++j) {
      recv.push_back(MutableBytes(result.data + j * piece_bytes, piece_bytes));
    }
    return communicator.AllToAll(call, send, recv);
  }
  staging.resize(operand.size());
  for (int64_t j = 0; j < members; ++j) {
    recv.push_back(MutableBytes(staging.data() + j * piece_bytes, piece_bytes));
    pieces.push_back(staging.data() + j * piece_bytes);
  }
  RETURN_IF_ERROR(communicator.AllToAll(call, send, recv));
  UnpackPieces(pieces, {concat.outer, concat.inner * members}, result.data);
  return absl::OkStatus();
}

absl::Status BroadcastFromFirst(Communicator& communicator,
                                const CollectiveCall& call,
                                const ArrayBytes& operand,
                                const ArrayBytes& result) {
  const int64_t bytes = operand.size();
  if (result.size() != bytes) {
    return ShapeError(
        call, absl::StrCat("collective-broadcast result ", DimsText(result),
                           " differs from its operand ", DimsText(operand)));
  }
  // Rank 0 sends its operand to everyone; the others send nothing.
  const int64_t members = call.group.size();
  std::vector<ConstBytes> send(
      members, call.rank == 0 ? ConstBytes(operand.data, bytes) : ConstBytes());
  std::vector<MutableBytes> recv(members);
  recv[0] = MutableBytes(result.data, bytes);
  return communicator.AllToAll(call, send, recv);
}

std::optional<ElementCombiner> NativeCombiner(const HloComputation& reducer,
                                              PrimitiveType type) {
  const HloInstruction* root = reducer.root_instruction();
  // A one-op reducer of another floating type than the operand's (XLA's
  // collective quantizer makes bf16 all-reduces of an f32 maximum) is run
  // by its op on the operand's type, as XLA runs reducers by their kind.
  const PrimitiveType takes = root->shape().element_type();
  const bool same_kind = takes == type ||
                         (primitive_util::IsFloatingPointType(takes) &&
                          primitive_util::IsFloatingPointType(type));
  if (reducer.num_parameters() != 2 || root->operand_count() != 2 ||
      !root->shape().IsArray() || !root->shape().dimensions().empty() ||
      !same_kind || root->opcode() == HloOpcode::kCompare) {
    return std::nullopt;
  }
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  if (lhs->opcode() != HloOpcode::kParameter ||
      rhs->opcode() != HloOpcode::kParameter ||
      lhs->parameter_number() == rhs->parameter_number()) {
    return std::nullopt;
  }
  const bool swapped = lhs->parameter_number() == 1;
  if (primitive_util::IsSubByteIntType(type)) return std::nullopt;
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return CombinerOf<T>(root->opcode(), swapped);
  });
}

}  // namespace mxla
