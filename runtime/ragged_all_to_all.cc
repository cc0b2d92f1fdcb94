#include "runtime/ragged_all_to_all.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

int64_t Elements(const ArrayBytes& array) {
  int64_t count = 1;
  for (int64_t d : array.dims) count *= d;
  return count;
}

// One member's metadata, widened: [input_offsets | send_sizes |
// output_offsets | recv_sizes], each `count` long.
class Table {
 public:
  Table(const int64_t* data, int64_t count) : data_(data), count_(count) {}
  int64_t input_offset(int64_t e) const { return data_[e]; }
  int64_t send_size(int64_t e) const { return data_[count_ + e]; }
  int64_t output_offset(int64_t e) const { return data_[2 * count_ + e]; }
  int64_t recv_size(int64_t e) const { return data_[3 * count_ + e]; }

 private:
  const int64_t* data_;
  int64_t count_;
};

void Widen(const ArrayBytes& array, int64_t count, int64_t* out) {
  for (int64_t e = 0; e < count; ++e) {
    if (array.element_bytes == 4) {
      int32_t value;
      std::memcpy(&value, array.data + 4 * e, 4);
      out[e] = value;
    } else {
      std::memcpy(&out[e], array.data + 8 * e, 8);
    }
  }
}

bool InRows(int64_t offset, int64_t size, int64_t rows) {
  return offset >= 0 && size >= 0 && offset <= rows && size <= rows - offset;
}

struct Check {
  absl::string_view prefix;  // "ragged-all-to-all 'name': "
  const CollectiveCall& call;
  int64_t k;
  int64_t input_rows;
  int64_t output_rows;

  template <typename... Args>
  absl::Status Error(const Args&... text) const {
    return absl::InvalidArgumentError(absl::StrCat(prefix, text...));
  }

  // Member i's sends: its input rows and its rows in each peer's output.
  absl::Status Sends(int64_t i, const Table& m, int64_t count) const {
    const int64_t device = call.group[i];
    for (int64_t e = 0; e < count; ++e) {
      const int64_t peer = call.group[e / k];
      const int64_t size = m.send_size(e);
      if (!InRows(m.input_offset(e), size, input_rows)) {
        return Error("device ", device, " sends device ", peer, " (update ",
                     e % k, ") input rows from input_offsets[", e,
                     "]=", m.input_offset(e), " with send_sizes[", e,
                     "]=", size, ", out of range for its input of ", input_rows,
                     " rows");
      }
      if (!InRows(m.output_offset(e), size, output_rows)) {
        return Error("device ", device, " sends device ", peer, " (update ",
                     e % k, ") rows for output_offsets[", e,
                     "]=", m.output_offset(e), " with send_sizes[", e,
                     "]=", size, ", out of range for an output of ",
                     output_rows, " rows");
      }
    }
    return absl::OkStatus();
  }

  // Member i's recv_sizes against what each peer sends it.
  absl::Status Receives(int64_t i, const std::vector<Table>& all,
                        int64_t count) const {
    for (int64_t e = 0; e < count; ++e) {
      const int64_t j = e / k;
      const int64_t sent_at = i * k + e % k;
      const int64_t sent = all[j].send_size(sent_at);
      if (all[i].recv_size(e) != sent) {
        return Error("device ", call.group[i], " expects recv_sizes[", e,
                     "]=", all[i].recv_size(e), " rows from device ",
                     call.group[j], " (update ", e % k, "), but device ",
                     call.group[j], " sends send_sizes[", sent_at, "]=", sent);
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

namespace {

// Every member's metadata, as int64 tables (AllGather).
absl::Status GatherTables(Communicator& communicator,
                          const CollectiveCall& call, const RaggedBuffers& b,
                          int64_t count,
                          std::vector<std::vector<int64_t>>& gathered) {
  std::vector<int64_t> mine(4 * count);
  Widen(b.input_offsets, count, mine.data());
  Widen(b.send_sizes, count, mine.data() + count);
  Widen(b.output_offsets, count, mine.data() + 2 * count);
  Widen(b.recv_sizes, count, mine.data() + 3 * count);
  gathered.assign(call.group.size(), std::vector<int64_t>(4 * count));
  std::vector<MutableBytes> into;
  for (std::vector<int64_t>& g : gathered) {
    into.push_back(
        MutableBytes(reinterpret_cast<char*>(g.data()), g.size() * 8));
  }
  return communicator.AllGather(
      call,
      ConstBytes(reinterpret_cast<const char*>(mine.data()), mine.size() * 8),
      into);
}

// The checked tables' rows: each peer's updates packed in update order,
// exchanged, and written into the result in rank, then update, order.
absl::Status ExchangeRows(Communicator& communicator,
                          const CollectiveCall& call, const RaggedBuffers& b,
                          const std::vector<Table>& all, int64_t k,
                          int64_t row_bytes) {
  const int64_t n = call.group.size();
  const int64_t rank = call.rank;
  std::vector<std::vector<char>> packed(n), received(n);
  std::vector<ConstBytes> send;
  std::vector<MutableBytes> recv;
  for (int64_t j = 0; j < n; ++j) {
    int64_t incoming = 0;
    for (int64_t u = 0; u < k; ++u) {
      const int64_t e = j * k + u;
      const char* rows = b.input.data + all[rank].input_offset(e) * row_bytes;
      packed[j].insert(packed[j].end(), rows,
                       rows + all[rank].send_size(e) * row_bytes);
      incoming += all[j].send_size(rank * k + u);
    }
    received[j].resize(incoming * row_bytes);
    send.push_back(ConstBytes(packed[j].data(), packed[j].size()));
    recv.push_back(MutableBytes(received[j].data(), received[j].size()));
  }
  RETURN_IF_ERROR(communicator.AllToAll(call, send, recv));
  if (b.result.data != b.output.data && b.output.size() > 0) {
    std::memcpy(b.result.data, b.output.data, b.output.size());
  }
  for (int64_t j = 0; j < n; ++j) {
    const char* from = received[j].data();
    for (int64_t u = 0; u < k; ++u) {
      const int64_t e = rank * k + u;
      const int64_t bytes = all[j].send_size(e) * row_bytes;
      if (bytes == 0) continue;
      std::memcpy(b.result.data + all[j].output_offset(e) * row_bytes, from,
                  bytes);
      from += bytes;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RaggedAllToAll(Communicator& communicator,
                            const CollectiveCall& call,
                            absl::string_view opcode_text,
                            const RaggedBuffers& b) {
  const std::string prefix = absl::StrCat(opcode_text, " '", call.op, "': ");
  const int64_t n = call.group.size();
  const int64_t count = Elements(b.send_sizes);
  if (count % n != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "the offsets and sizes have ", count,
                     " elements, not a multiple of the group size ", n,
                     " of group {", absl::StrJoin(call.group, ","), "}"));
  }
  std::vector<std::vector<int64_t>> gathered;
  RETURN_IF_ERROR(GatherTables(communicator, call, b, count, gathered));
  std::vector<Table> all;
  for (const std::vector<int64_t>& g : gathered) {
    all.emplace_back(g.data(), count);
  }
  const int64_t k = count / n;
  const int64_t input_rows = b.input.dims[0];
  const Check check{prefix, call, k, input_rows, b.output.dims[0]};
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(check.Sends(i, all[i], count));
    RETURN_IF_ERROR(check.Receives(i, all, count));
  }
  const int64_t row_bytes = input_rows == 0 ? 0 : b.input.size() / input_rows;
  return ExchangeRows(communicator, call, b, all, k, row_bytes);
}

}  // namespace mxla
