#include "tests/distributed/gloo_child.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "distributed/gloo_communicator.h"
#include "ir/status_macros.h"

namespace mxla::gloo_test {
namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  std::string scenario;
  int64_t device = 0;
  int64_t devices = 0;
  std::string directory;
  std::string run;
  int64_t timeout_ms = 0;
  std::string report;  // "key: value" lines

  void Note(absl::string_view key, absl::string_view value) {
    absl::StrAppend(&report, key, ": ", value, "\n");
  }
};

int64_t Milliseconds(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                               since)
      .count();
}

uint64_t Mix(uint64_t h) {
  h ^= h >> 31;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

// The bytes device `from` sends to `to` in call `call`.
std::vector<char> Pattern(int64_t from, int64_t to, int64_t call,
                          int64_t size) {
  std::vector<char> bytes(size);
  for (int64_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>(
        Mix(from * 1000003 + to * 10007 + call * 101 + i * 7919 + 1) >> 56);
  }
  return bytes;
}

// Device `device`'s operand of an all-reduce: magnitudes 2^-24 to 2^24, so
// that a sum in another order rounds differently.
float Value(int64_t device, int64_t call, int64_t i) {
  const uint64_t h = Mix(device * 7777 + call * 131 + i * 1000003 + 5);
  return static_cast<float>(static_cast<int64_t>(h % 2001) - 1000) *
         std::ldexp(1.0f, static_cast<int>((h >> 20) % 48) - 24);
}

// Every device of the run makes every call; `GroupOf` picks this device's
// group of a partition of the devices into groups.
using Partition = std::vector<std::vector<int64_t>>;

struct Member {
  std::vector<int64_t> group;
  int64_t rank = 0;
};
Member GroupOf(const Partition& partition, int64_t device) {
  for (const auto& group : partition) {
    for (size_t k = 0; k < group.size(); ++k) {
      if (group[k] == device) return {group, static_cast<int64_t>(k)};
    }
  }
  return {};
}

absl::Status CheckAllToAll(
    Communicator& comm, int64_t call, const Partition& partition,
    const std::function<int64_t(int64_t, int64_t)>& size) {
  const int64_t me = comm.device_id();
  const Member member = GroupOf(partition, me);
  std::vector<std::vector<char>> sends, recvs;
  std::vector<ConstBytes> send;
  std::vector<MutableBytes> recv;
  for (int64_t peer : member.group) {
    sends.push_back(Pattern(me, peer, call, size(me, peer)));
    recvs.push_back(std::vector<char>(size(peer, me)));
  }
  for (size_t k = 0; k < member.group.size(); ++k) {
    send.push_back(ConstBytes(sends[k].data(), sends[k].size()));
    recv.push_back(MutableBytes(recvs[k].data(), recvs[k].size()));
  }
  const std::string op = absl::StrCat("all-to-all.", call);
  RETURN_IF_ERROR(comm.AllToAll({op, member.group, member.rank}, send, recv));
  for (size_t k = 0; k < member.group.size(); ++k) {
    const int64_t peer = member.group[k];
    if (recvs[k] != Pattern(peer, me, call, size(peer, me))) {
      return absl::InternalError(
          absl::StrCat(op, ": wrong bytes from device ", peer));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllGather(Communicator& comm, int64_t call,
                            const Partition& partition, int64_t size) {
  const int64_t me = comm.device_id();
  const Member member = GroupOf(partition, me);
  const std::vector<char> mine = Pattern(me, -1, call, size);
  std::vector<std::vector<char>> recvs(member.group.size(),
                                       std::vector<char>(size));
  std::vector<MutableBytes> recv;
  for (auto& bytes : recvs) recv.push_back(MutableBytes(bytes.data(), size));
  const std::string op = absl::StrCat("all-gather.", call);
  RETURN_IF_ERROR(comm.AllGather({op, member.group, member.rank},
                                 ConstBytes(mine.data(), size), recv));
  for (size_t k = 0; k < member.group.size(); ++k) {
    if (recvs[k] != Pattern(member.group[k], -1, call, size)) {
      return absl::InternalError(
          absl::StrCat(op, ": wrong bytes from device ", member.group[k]));
    }
  }
  return absl::OkStatus();
}

// `pairs` are (source, target); a device with no source keeps its buffer.
absl::Status CheckPermute(Communicator& comm, int64_t call,
                          const std::vector<std::pair<int64_t, int64_t>>& pairs,
                          int64_t size) {
  const int64_t me = comm.device_id();
  std::vector<int64_t> targets;
  std::optional<int64_t> source;
  for (auto [from, to] : pairs) {
    if (from == me) targets.push_back(to);
    if (to == me) source = from;
  }
  const std::vector<char> mine = Pattern(me, -1, call, size);
  std::vector<char> recv(size, 0x5a);
  const std::string op = absl::StrCat("collective-permute.", call);
  RETURN_IF_ERROR(comm.Permute(op, ConstBytes(mine.data(), size), targets,
                               source, MutableBytes(recv.data(), size)));
  const std::vector<char> expected =
      source ? Pattern(*source, -1, call, size) : std::vector<char>(size, 0x5a);
  if (recv != expected) {
    return absl::InternalError(
        absl::StrCat(op, ": wrong bytes from ",
                     source ? absl::StrCat("device ", *source) : "no device"));
  }
  return absl::OkStatus();
}

ElementCombiner AddF32() {
  return {4, [](char* accumulator, const char* other, int64_t elements) {
            float* a = reinterpret_cast<float*>(accumulator);
            const float* b = reinterpret_cast<const float*>(other);
            for (int64_t i = 0; i < elements; ++i) a[i] = a[i] + b[i];
            return absl::OkStatus();
          }};
}

// The sum of the group's operands left to right, in rank order, or in the
// reverse order.
std::vector<float> SumInOrder(const std::vector<int64_t>& group, int64_t call,
                              int64_t elements, bool reverse) {
  std::vector<int64_t> order = group;
  if (reverse) std::reverse(order.begin(), order.end());
  std::vector<float> sum(elements);
  for (int64_t i = 0; i < elements; ++i) {
    float acc = Value(order[0], call, i);
    for (size_t k = 1; k < order.size(); ++k)
      acc = acc + Value(order[k], call, i);
    sum[i] = acc;
  }
  return sum;
}

absl::Status CheckAllReduce(Communicator& comm, int64_t call,
                            const Partition& partition, int64_t elements,
                            bool in_place) {
  const int64_t me = comm.device_id();
  const Member member = GroupOf(partition, me);
  std::vector<float> send(elements), recv(elements, NAN);
  for (int64_t i = 0; i < elements; ++i) send[i] = Value(me, call, i);
  const std::string op = absl::StrCat("all-reduce.", call);
  const ConstBytes in(reinterpret_cast<const char*>(send.data()), 4 * elements);
  const MutableBytes out(
      reinterpret_cast<char*>((in_place ? send : recv).data()), 4 * elements);
  RETURN_IF_ERROR(
      comm.AllReduce({op, member.group, member.rank}, in, out, AddF32()));
  const std::vector<float>& result = in_place ? send : recv;
  const std::vector<float> expected =
      SumInOrder(member.group, call, elements, /*reverse=*/false);
  if (elements > 0 &&
      std::memcmp(result.data(), expected.data(), 4 * elements) != 0) {
    return absl::InternalError(
        absl::StrCat(op, ": the bits differ from the left-to-right sum"));
  }
  // With 3 or more members the data must be able to tell the orders apart,
  // or the check above would prove nothing about the order.
  if (member.group.size() >= 3 && elements >= 1000 &&
      SumInOrder(member.group, call, elements, /*reverse=*/true) == expected) {
    return absl::InternalError(
        absl::StrCat(op, ": the test's data do not depend on the order"));
  }
  return absl::OkStatus();
}

absl::Status Collectives(Communicator& comm) {
  const int64_t n = comm.device_count();
  Partition all(1), reversed(1), halves, singles;
  for (int64_t d = 0; d < n; ++d) {
    all[0].push_back(d);
    reversed[0].insert(reversed[0].begin(), d);
    singles.push_back({d});
  }
  // {0,2} and {1,3} at once (with 2 devices, {0} and {1}).
  halves.resize(2);
  for (int64_t d = 0; d < n; ++d) halves[d % 2].push_back(d);
  const int64_t large = 70000;  // above the 64 KiB a header carries
  auto small_sizes = [](int64_t from, int64_t to) {
    return 5 + 3 * from + 11 * to;
  };
  auto large_sizes = [&](int64_t from, int64_t to) {
    return large + 17 * from + 5 * to;
  };
  int64_t call = 0;
  RETURN_IF_ERROR(CheckAllToAll(comm, ++call, all, small_sizes));
  RETURN_IF_ERROR(CheckAllToAll(comm, ++call, all, large_sizes));
  RETURN_IF_ERROR(CheckAllToAll(comm, ++call, halves, small_sizes));
  RETURN_IF_ERROR(CheckAllToAll(comm, ++call, reversed, large_sizes));
  RETURN_IF_ERROR(CheckAllGather(comm, ++call, all, 100));
  RETURN_IF_ERROR(CheckAllGather(comm, ++call, halves, large));
  RETURN_IF_ERROR(CheckAllGather(comm, ++call, reversed, 0));
  RETURN_IF_ERROR(CheckAllGather(comm, ++call, singles, 64));
  // A ring, one way round; a chain whose first device has no source and
  // whose last sends nowhere; every device to itself; one device to all
  // others; and a ring of large buffers.
  std::vector<std::pair<int64_t, int64_t>> ring, chain, self, fan;
  for (int64_t d = 0; d < n; ++d) {
    ring.push_back({d, (d + 1) % n});
    if (d + 1 < n) chain.push_back({d, d + 1});
    self.push_back({d, d});
    if (d > 0) fan.push_back({0, d});
  }
  RETURN_IF_ERROR(CheckPermute(comm, ++call, ring, 24));
  RETURN_IF_ERROR(CheckPermute(comm, ++call, chain, 24));
  RETURN_IF_ERROR(CheckPermute(comm, ++call, self, 24));
  RETURN_IF_ERROR(CheckPermute(comm, ++call, fan, 1000));
  RETURN_IF_ERROR(CheckPermute(comm, ++call, ring, 300000));
  RETURN_IF_ERROR(CheckPermute(comm, ++call, {}, 8));
  for (const Partition* partition : {&all, &halves, &reversed}) {
    RETURN_IF_ERROR(CheckAllReduce(comm, ++call, *partition, 1000, false));
    RETURN_IF_ERROR(CheckAllReduce(comm, ++call, *partition, 3, false));
    RETURN_IF_ERROR(CheckAllReduce(comm, ++call, *partition, 100003, false));
    RETURN_IF_ERROR(CheckAllReduce(comm, ++call, *partition, 40001, true));
  }
  RETURN_IF_ERROR(CheckAllReduce(comm, ++call, all, 0, false));
  return absl::OkStatus();
}

// Calls an all-gather of every device (`send_bytes` from this device,
// `recv_bytes` from each) that must fail, and then an all-reduce that must
// fail at once; notes both errors and how long each call took.
absl::Status ExpectFailures(Child& child, Communicator& comm,
                            absl::string_view op, int64_t send_bytes,
                            int64_t recv_bytes) {
  const int64_t n = comm.device_count();
  std::vector<char> mine(send_bytes), all(recv_bytes * n);
  std::vector<MutableBytes> recv;
  std::vector<int64_t> group(n);
  std::iota(group.begin(), group.end(), 0);
  for (int64_t d = 0; d < n; ++d) {
    recv.push_back(MutableBytes(all.data() + d * recv_bytes, recv_bytes));
  }
  auto start = Clock::now();
  const absl::Status error =
      comm.AllGather({op, group, comm.device_id()},
                     ConstBytes(mine.data(), mine.size()), recv);
  child.Note("error", error.ToString());
  child.Note("elapsed_ms", absl::StrCat(Milliseconds(start)));
  start = Clock::now();
  float x = 1;
  const absl::Status next =
      comm.AllReduce({"all-reduce.next", group, comm.device_id()},
                     ConstBytes(reinterpret_cast<char*>(&x), 4),
                     MutableBytes(reinterpret_cast<char*>(&x), 4), AddF32());
  child.Note("next", next.ToString());
  child.Note("next_elapsed_ms", absl::StrCat(Milliseconds(start)));
  if (error.ok() || next.ok()) {
    return absl::InternalError("a call that should fail succeeded");
  }
  return absl::OkStatus();
}

absl::Status Run(Child& child) {
  const GlooOptions options{child.directory, child.run, "127.0.0.1",
                            std::chrono::milliseconds(child.timeout_ms)};
  const auto start = Clock::now();
  absl::StatusOr<std::unique_ptr<GlooCommunicator>> connected =
      GlooCommunicator::Connect(child.device, child.devices, options);
  child.Note("connect_ms", absl::StrCat(Milliseconds(start)));
  if (child.scenario == "never") {  // the parent never starts a device
    child.Note("error", connected.status().ToString());
    return connected.ok() ? absl::InternalError("connected") : absl::OkStatus();
  }
  RETURN_IF_ERROR(connected.status());
  GlooCommunicator& comm = **connected;
  const bool last = child.device == child.devices - 1;
  Partition all(1);
  for (int64_t d = 0; d < child.devices; ++d) all[0].push_back(d);
  if (child.scenario == "collectives") {
    RETURN_IF_ERROR(Collectives(comm));
    child.Note("elapsed_ms", absl::StrCat(Milliseconds(start)));
    return absl::OkStatus();
  }
  if (child.scenario == "exit") {  // the last device dies after one call
    RETURN_IF_ERROR(CheckAllReduce(comm, 1, all, 1000, false));
    if (last) _exit(kDiedCode);
    return ExpectFailures(child, comm, "all-gather.2", 16, 16);
  }
  if (child.scenario == "hang") {  // the last device stops calling
    if (!last) return ExpectFailures(child, comm, "all-gather.1", 16, 16);
    // Until device 0 has reported, so that the run ends soon after.
    const auto report = std::filesystem::path(child.directory) / "report_0.txt";
    while (!std::filesystem::exists(report) &&
           Milliseconds(start) < 10 * child.timeout_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return absl::OkStatus();
  }
  if (child.scenario == "mismatch") {  // the last device sends more
    const int64_t bytes = last ? 100000 : 90000;
    return ExpectFailures(child, comm, "all-gather.1", bytes, bytes);
  }
  if (child.scenario == "diverge") {  // each device is at another op
    return ExpectFailures(
        child, comm, absl::StrCat("all-gather.", 1 + child.device), 16, 16);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown scenario ", child.scenario));
}

}  // namespace

int ChildMain(int argc, char** argv) {
  Child child;
  if (argc != 7) return 2;
  child.scenario = argv[1] + std::strlen(kChildFlag);
  child.device = std::atoll(argv[2]);
  child.devices = std::atoll(argv[3]);
  child.directory = argv[4];
  child.run = argv[5];
  child.timeout_ms = std::atoll(argv[6]);
  const absl::Status status = Run(child);
  std::ofstream(std::filesystem::path(child.directory) /
                absl::StrCat("report_", child.device, ".txt"))
      << (status.ok() ? "OK" : "FAIL " + status.ToString()) << "\n"
      << child.report;
  return status.ok() ? 0 : 1;
}

}  // namespace mxla::gloo_test
