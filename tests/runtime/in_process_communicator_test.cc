// Devices as threads of one process: every exchange of the Communicator
// interface on whole runs and on subgroups at once, the all-reduce's fixed
// rank order (its bits equal a left-to-right sum, the same on every
// device, for the in-process path and the interface's default alike), and
// the failures: a device that never arrives, an abort, devices that
// diverge, sizes that disagree.
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/status_macros.h"
#include "runtime/in_process_communicator.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;

MutableBytes Bytes(std::vector<float>& v) {
  return MutableBytes(reinterpret_cast<char*>(v.data()), v.size() * 4);
}
ConstBytes Bytes(const std::vector<float>& v) {
  return ConstBytes(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// Runs `body(communicator)` on `devices` threads of one rendezvous and
// returns each device's status.
std::vector<absl::Status> OnDevices(
    int64_t devices, absl::Duration timeout,
    const std::function<absl::Status(InProcessCommunicator&)>& body) {
  auto rendezvous = std::make_shared<InProcessRendezvous>(devices, timeout);
  std::vector<absl::Status> statuses(devices);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      InProcessCommunicator communicator(rendezvous, d);
      statuses[d] = body(communicator);
      if (!statuses[d].ok()) rendezvous->Abort(statuses[d]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return statuses;
}

// The sum of 1e8, 1, -1e8 and 1 (with `scale` on the second) left to right
// in f32: the order changes the bits.
float LeftToRight(const std::vector<float>& terms) {
  float sum = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) sum += terms[i];
  return sum;
}

const ElementCombiner kAddF32{
    4, [](char* accumulator, const char* other, int64_t elements) {
      float* a = reinterpret_cast<float*>(accumulator);
      const float* b = reinterpret_cast<const float*>(other);
      for (int64_t i = 0; i < elements; ++i) a[i] += b[i];
      return absl::OkStatus();
    }};

TEST(InProcessCommunicatorTest, AllToAllAndAllGatherOnSubgroupsAtOnce) {
  // Groups {0,2} and {1,3} exchange at the same time.
  const std::vector<absl::Status> statuses =
      OnDevices(4, absl::Seconds(30), [](InProcessCommunicator& c) {
        const int64_t d = c.device_id();
        const std::vector<int64_t> group =
            d % 2 == 0 ? std::vector<int64_t>{0, 2}
                       : std::vector<int64_t>{1, 3};
        const int64_t rank = d / 2;
        const CollectiveCall call{"a2a", group, rank};
        // Device d sends {10d + k} to member k.
        std::vector<std::vector<float>> send = {{10.0f * d + 0},
                                                {10.0f * d + 1}};
        std::vector<std::vector<float>> recv(2, std::vector<float>(1));
        std::vector<ConstBytes> s = {Bytes(std::as_const(send[0])),
                                     Bytes(std::as_const(send[1]))};
        std::vector<MutableBytes> r = {Bytes(recv[0]), Bytes(recv[1])};
        RETURN_IF_ERROR(c.AllToAll(call, s, r));
        for (int64_t j = 0; j < 2; ++j) {
          const float expected = 10.0f * group[j] + rank;
          if (recv[j][0] != expected) {
            return absl::InternalError(absl::StrCat(
                "device ", d, " got ", recv[j][0], " from member ", j));
          }
        }
        std::vector<float> mine = {static_cast<float>(d), -1.0f * d};
        std::vector<std::vector<float>> all(2, std::vector<float>(2));
        std::vector<MutableBytes> slots = {Bytes(all[0]), Bytes(all[1])};
        RETURN_IF_ERROR(c.AllGather({"ag", group, rank},
                                    Bytes(std::as_const(mine)), slots));
        for (int64_t j = 0; j < 2; ++j) {
          if (all[j][0] != group[j] || all[j][1] != -1.0f * group[j]) {
            return absl::InternalError("all-gather");
          }
        }
        return absl::OkStatus();
      });
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

TEST(InProcessCommunicatorTest, PermuteLeavesDevicesWithoutASourceAlone) {
  // 0 -> 1 -> 2; device 0 receives nothing.
  const std::vector<absl::Status> statuses =
      OnDevices(3, absl::Seconds(30), [](InProcessCommunicator& c) {
        const int64_t d = c.device_id();
        const std::vector<float> send = {100.0f + d};
        std::vector<float> recv = {-7.0f};
        std::vector<int64_t> targets;
        if (d < 2) targets.push_back(d + 1);
        std::optional<int64_t> source;
        if (d > 0) source = d - 1;
        RETURN_IF_ERROR(
            c.Permute("cp", Bytes(send), targets, source, Bytes(recv)));
        const float expected = d == 0 ? -7.0f : 100.0f + d - 1;
        if (recv[0] != expected) return absl::InternalError("permute");
        return absl::OkStatus();
      });
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

// Both the in-process all-reduce and the interface's default (AllToAll +
// AllGather) add in rank order; 4 devices, 1001 elements (chunks of
// unequal length), values whose sum depends on the order.
TEST(InProcessCommunicatorTest, AllReduceAddsInRankOrderOnEveryDevice) {
  constexpr int64_t kElements = 1001;
  auto value = [](int64_t device, int64_t i) {
    const float terms[] = {1e8f, 1.0f + i, -1e8f, 0.5f};
    return terms[device] * (1 + (i % 3));
  };
  for (bool default_path : {false, true}) {
    SCOPED_TRACE(default_path ? "Communicator::AllReduce" : "in-process");
    const std::vector<absl::Status> statuses =
        OnDevices(4, absl::Seconds(30), [&](InProcessCommunicator& c) {
          const int64_t d = c.device_id();
          std::vector<float> send(kElements), recv(kElements, 0.0f);
          for (int64_t i = 0; i < kElements; ++i) send[i] = value(d, i);
          const std::vector<int64_t> group = {0, 1, 2, 3};
          const CollectiveCall call{"ar", group, d};
          RETURN_IF_ERROR(
              default_path
                  ? c.Communicator::AllReduce(call, Bytes(std::as_const(send)),
                                              Bytes(recv), kAddF32)
                  : c.AllReduce(call, Bytes(std::as_const(send)), Bytes(recv),
                                kAddF32));
          for (int64_t i = 0; i < kElements; ++i) {
            const float expected = LeftToRight(
                {value(0, i), value(1, i), value(2, i), value(3, i)});
            if (std::memcmp(&recv[i], &expected, 4) != 0) {
              return absl::InternalError(absl::StrCat(
                  "device ", d, " element ", i, ": ", recv[i], " != ",
                  expected));
            }
          }
          return absl::OkStatus();
        });
    for (const absl::Status& status : statuses) EXPECT_OK(status);
  }
}

// From 8 MiB on the results are written with streaming stores: 3 devices
// whose chunks start off any 16-byte boundary, and a length that leaves a
// partial vector at the end, still give every device the sum.
TEST(InProcessCommunicatorTest, ALargeAllReduceStreamsTheSameResults) {
  constexpr int64_t kElements = (int64_t{8} << 20) / 4 + 3;
  const std::vector<absl::Status> statuses =
      OnDevices(3, absl::Seconds(60), [&](InProcessCommunicator& c) {
        const int64_t d = c.device_id();
        std::vector<float> send(kElements), recv(kElements, -1.0f);
        for (int64_t i = 0; i < kElements; ++i) send[i] = (i % 1000) + d;
        const std::vector<int64_t> group = {0, 1, 2};
        RETURN_IF_ERROR(c.AllReduce({"ar", group, d},
                                    Bytes(std::as_const(send)), Bytes(recv),
                                    kAddF32));
        for (int64_t i = 0; i < kElements; ++i) {
          const float expected = 3.0f * (i % 1000) + 3;
          if (recv[i] != expected) {
            return absl::InternalError(absl::StrCat(
                "device ", d, " element ", i, ": ", recv[i], " != ",
                expected));
          }
        }
        return absl::OkStatus();
      });
  for (const absl::Status& status : statuses) EXPECT_OK(status);
}

TEST(InProcessCommunicatorTest, AMissingDeviceTimesOutNamingIt) {
  const std::vector<absl::Status> statuses =
      OnDevices(3, absl::Milliseconds(200), [](InProcessCommunicator& c) {
        if (c.device_id() == 2) return absl::OkStatus();  // never arrives
        std::vector<float> x = {1.0f}, y = {0.0f};
        const std::vector<int64_t> group = {0, 1, 2};
        return c.AllReduce({"ar.7", group, c.device_id()},
                           Bytes(std::as_const(x)), Bytes(y), kAddF32);
      });
  // The first to time out aborts the other; both name the op or the abort.
  EXPECT_EQ(statuses[0].code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("ar.7: device(s) 2 did not reach this collective"));
  EXPECT_EQ(statuses[1].code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_OK(statuses[2]);
}

TEST(InProcessCommunicatorTest, AFailedDeviceStopsTheOthers) {
  const std::vector<absl::Status> statuses =
      OnDevices(2, absl::Minutes(5), [](InProcessCommunicator& c) {
        if (c.device_id() == 1) return absl::InternalError("device 1 broke");
        std::vector<float> x = {1.0f}, y = {0.0f};
        const std::vector<int64_t> group = {0, 1};
        return c.AllReduce({"ar", group, 0}, Bytes(std::as_const(x)),
                           Bytes(y), kAddF32);
      });
  EXPECT_THAT(statuses[0].message(), HasSubstr("device 1 broke"));
}

TEST(InProcessCommunicatorTest, DivergedDevicesAndSizeMismatchesAreErrors) {
  std::vector<absl::Status> statuses =
      OnDevices(2, absl::Seconds(30), [](InProcessCommunicator& c) {
        std::vector<float> x = {1.0f}, y = {0.0f};
        const std::vector<int64_t> group = {0, 1};
        const char* op = c.device_id() == 0 ? "ar.1" : "ar.2";
        return c.AllReduce({op, group, c.device_id()},
                           Bytes(std::as_const(x)), Bytes(y), kAddF32);
      });
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("devices diverged: device 0 is at collective 'ar.1' "
                        "while device 1 is at 'ar.2'"));
  statuses = OnDevices(2, absl::Seconds(30), [](InProcessCommunicator& c) {
    std::vector<float> x(1 + c.device_id()), y(1 + c.device_id());
    const std::vector<int64_t> group = {0, 1};
    std::vector<std::vector<float>> slots(2, std::vector<float>(1));
    std::vector<MutableBytes> r = {Bytes(slots[0]), Bytes(slots[1])};
    return c.AllGather({"ag", group, c.device_id()}, Bytes(std::as_const(x)),
                       r);
  });
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("ag: member 1 sends 8 bytes where 4 were expected"));
}

}  // namespace
}  // namespace mxla
