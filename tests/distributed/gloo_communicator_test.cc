// GlooCommunicator across processes: the test launches 2, 3 or 4 copies of
// itself on loopback (tests/distributed/gloo_child.h), each one device of a
// run, and checks how each ended and what it reported.
#include "distributed/gloo_communicator.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "distributed/local_processes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/gloo_child.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A fresh directory, removed at the end.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = ::testing::TempDir() + "mxla_gloo_XXXXXX";
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDirectory() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Launched {
  std::vector<ProcessEnd> ends;
  std::vector<std::string> reports;  // by device started
};

// Starts devices `started` (all when empty) of a run of `devices` on
// `scenario`; a run that has not ended after 20 s is killed.
Launched Launch(const std::string& scenario, int64_t devices,
                int64_t timeout_ms, std::vector<int64_t> started = {}) {
  TempDirectory directory;
  EXPECT_FALSE(directory.path().empty());
  if (started.empty()) {
    for (int64_t d = 0; d < devices; ++d) started.push_back(d);
  }
  std::vector<std::vector<std::string>> arguments;
  for (int64_t d : started) {
    arguments.push_back({absl::StrCat(gloo_test::kChildFlag, scenario),
                         absl::StrCat(d), absl::StrCat(devices),
                         directory.path(), "test-run",
                         absl::StrCat(timeout_ms)});
  }
  absl::StatusOr<std::vector<ProcessEnd>> ends =
      RunLocalProcesses("/proc/self/exe", arguments, std::chrono::seconds(20));
  EXPECT_THAT(ends, IsOk());
  Launched launched;
  if (!ends.ok()) return launched;
  launched.ends = *ends;
  for (int64_t d : started) {
    std::ifstream in(std::filesystem::path(directory.path()) /
                     absl::StrCat("report_", d, ".txt"));
    std::stringstream text;
    text << in.rdbuf();
    launched.reports.push_back(text.str());
  }
  return launched;
}

// The value of a report's "key: value" line.
std::string Field(const std::string& report, const std::string& key) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    if (absl::StartsWith(line, key + ": ")) return line.substr(key.size() + 2);
  }
  return "";
}

int64_t FieldMs(const std::string& report, const std::string& key) {
  return std::atoll(Field(report, key).c_str());
}

void ExpectAllPassed(const Launched& launched) {
  for (size_t d = 0; d < launched.ends.size(); ++d) {
    SCOPED_TRACE(
        absl::StrCat("device ", d, "; report:\n", launched.reports[d]));
    EXPECT_TRUE(launched.ends[d].exited);
    EXPECT_EQ(launched.ends[d].exit_code, 0);
    EXPECT_THAT(launched.reports[d], StartsWith("OK\n"));
  }
}

TEST(GlooCommunicatorTest, CollectivesAcrossTwoProcesses) {
  ExpectAllPassed(Launch("collectives", 2, 10000));
}

TEST(GlooCommunicatorTest, CollectivesAcrossFourProcesses) {
  ExpectAllPassed(Launch("collectives", 4, 10000));
}

TEST(GlooCommunicatorTest, ADeviceThatDiesFailsTheOtherAtOnce) {
  const Launched run = Launch("exit", 2, 5000);
  ASSERT_EQ(run.ends.size(), 2);
  EXPECT_EQ(run.ends[1].exit_code, gloo_test::kDiedCode);
  ExpectAllPassed({{run.ends[0]}, {run.reports[0]}});
  const std::string& report = run.reports[0];
  EXPECT_THAT(Field(report, "error"),
              StartsWith("UNAVAILABLE: all-gather.2: the connection to "
                         "device 1 closed or failed, as when its process has "
                         "failed or exited (gloo: "));
  // A closed connection is seen long before the 5 s timeout.
  EXPECT_LT(FieldMs(report, "elapsed_ms"), 2500);
  EXPECT_THAT(Field(report, "next"),
              StartsWith("UNAVAILABLE: all-reduce.next: not run, an earlier "
                         "collective failed: all-gather.2: the connection"));
  EXPECT_LT(FieldMs(report, "next_elapsed_ms"), 100);
}

TEST(GlooCommunicatorTest, ADeviceThatDiesFailsTheOthersAmongFour) {
  const Launched run = Launch("exit", 4, 5000);
  ASSERT_EQ(run.ends.size(), 4);
  EXPECT_EQ(run.ends[3].exit_code, gloo_test::kDiedCode);
  for (int d = 0; d < 3; ++d) {
    SCOPED_TRACE(absl::StrCat("device ", d, "; report:\n", run.reports[d]));
    EXPECT_EQ(run.ends[d].exit_code, 0);
    // Device 3, or a device that failed on it first and closed its
    // connections: either is named, long before the 5 s timeout.
    EXPECT_THAT(Field(run.reports[d], "error"),
                StartsWith("UNAVAILABLE: all-gather.2: the connection to "
                           "device "));
    EXPECT_LT(FieldMs(run.reports[d], "elapsed_ms"), 2500);
    EXPECT_LT(FieldMs(run.reports[d], "next_elapsed_ms"), 100);
  }
}

TEST(GlooCommunicatorTest, ADeviceThatStopsCallingTimesOut) {
  const Launched run = Launch("hang", 2, 1000);
  ExpectAllPassed(run);
  ASSERT_EQ(run.reports.size(), 2);
  const std::string& report = run.reports[0];
  EXPECT_THAT(Field(report, "error"),
              StartsWith("DEADLINE_EXCEEDED: all-gather.1: device 1 did not "
                         "take part within the timeout of 1000 ms (gloo: "));
  // The timeout, give or take a busy machine's scheduling.
  EXPECT_GE(FieldMs(report, "elapsed_ms"), 900);
  EXPECT_LT(FieldMs(report, "elapsed_ms"), 2500);
  EXPECT_THAT(Field(report, "next"),
              HasSubstr("all-reduce.next: not run, an earlier collective "
                        "failed: all-gather.1: device 1 did not take part"));
  EXPECT_LT(FieldMs(report, "next_elapsed_ms"), 100);
}

TEST(GlooCommunicatorTest, ADeviceThatNeverStartsFailsTheRendezvous) {
  const Launched run = Launch("never", 3, 1500, {0, 1});
  ExpectAllPassed(run);
  for (const std::string& report : run.reports) {
    EXPECT_THAT(Field(report, "error"),
                AllOf(StartsWith("DEADLINE_EXCEEDED: gloo rendezvous of run "
                                 "'test-run' in '"),
                      HasSubstr(": device 2 did not arrive within 1500 ms")));
    EXPECT_GE(FieldMs(report, "connect_ms"), 1400);
    EXPECT_LT(FieldMs(report, "connect_ms"), 3000);
  }
}

TEST(GlooCommunicatorTest, SizesThatDisagreeFailBothDevices) {
  // 90,000 and 100,000 bytes: above what a header carries, where gloo
  // itself would overrun the smaller buffer and abort.
  const Launched run = Launch("mismatch", 2, 5000);
  ExpectAllPassed(run);
  ASSERT_EQ(run.reports.size(), 2);
  EXPECT_EQ(Field(run.reports[0], "error"),
            "INVALID_ARGUMENT: all-gather.1: device 1 sends 100000 bytes to "
            "device 0, which expects 90000 bytes");
  EXPECT_EQ(Field(run.reports[1], "error"),
            "INVALID_ARGUMENT: all-gather.1: device 0 sends 90000 bytes to "
            "device 1, which expects 100000 bytes");
}

TEST(GlooCommunicatorTest, DevicesAtDifferentOpsFail) {
  const Launched run = Launch("diverge", 2, 5000);
  ExpectAllPassed(run);
  ASSERT_EQ(run.reports.size(), 2);
  EXPECT_EQ(Field(run.reports[0], "error"),
            "INVALID_ARGUMENT: all-gather.1: device 1 is at all-gather.2 in "
            "the same call (the devices' programs diverge)");
  EXPECT_EQ(Field(run.reports[1], "error"),
            "INVALID_ARGUMENT: all-gather.2: device 0 is at all-gather.1 in "
            "the same call (the devices' programs diverge)");
}

GlooOptions OptionsIn(const TempDirectory& directory) {
  return {directory.path(), "alone", "127.0.0.1", std::chrono::seconds(5)};
}

TEST(GlooCommunicatorTest, OneDeviceRunsAlone) {
  TempDirectory directory;
  absl::StatusOr<std::unique_ptr<GlooCommunicator>> comm =
      GlooCommunicator::Connect(0, 1, OptionsIn(directory));
  ASSERT_THAT(comm, IsOk());
  const std::vector<int64_t> group = {0};
  float in[3] = {1, 2, 3}, out[3] = {};
  ElementCombiner add{4, [](char* a, const char* b, int64_t n) {
                        for (int64_t i = 0; i < n; ++i) {
                          reinterpret_cast<float*>(a)[i] +=
                              reinterpret_cast<const float*>(b)[i];
                        }
                        return absl::OkStatus();
                      }};
  EXPECT_THAT(
      (*comm)->AllReduce({"all-reduce", group, 0},
                         ConstBytes(reinterpret_cast<char*>(in), 12),
                         MutableBytes(reinterpret_cast<char*>(out), 12), add),
      IsOk());
  EXPECT_EQ(out[2], 3.0f);
  char byte = 7, got = 0;
  EXPECT_THAT((*comm)->Permute("collective-permute", ConstBytes(&byte, 1), {0},
                               0, MutableBytes(&got, 1)),
              IsOk());
  EXPECT_EQ(got, 7);
}

TEST(GlooCommunicatorTest, OptionsThatCannotWork) {
  TempDirectory directory;
  GlooOptions options = OptionsIn(directory);
  EXPECT_THAT(GlooCommunicator::Connect(2, 2, options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(": device 2 is not one of the run's 2 "
                                 "devices (0 to 1)")));
  options.run_name = "";
  EXPECT_THAT(GlooCommunicator::Connect(0, 1, options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(": the run needs a name")));
  options = OptionsIn(directory);
  options.timeout = std::chrono::milliseconds(0);
  EXPECT_THAT(GlooCommunicator::Connect(0, 1, options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the timeout must be positive, not 0 ms")));
  options = OptionsIn(directory);
  options.store_directory += "/missing";
  EXPECT_THAT(GlooCommunicator::Connect(0, 1, options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("/missing': the store directory does not "
                                 "exist")));
}

TEST(GlooCommunicatorTest, ARunNameServesOneRun) {
  TempDirectory directory;
  ASSERT_THAT(GlooCommunicator::Connect(0, 1, OptionsIn(directory)), IsOk());
  EXPECT_THAT(GlooCommunicator::Connect(0, 1, OptionsIn(directory)),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("the directory holds this run's files from "
                                 "before; each run needs a fresh name or "
                                 "directory")));
}

TEST(GlooCommunicatorTest, ABadCallFailsItAndEveryLaterOne) {
  TempDirectory directory;
  absl::StatusOr<std::unique_ptr<GlooCommunicator>> comm =
      GlooCommunicator::Connect(0, 1, OptionsIn(directory));
  ASSERT_THAT(comm, IsOk());
  char byte = 0;
  EXPECT_THAT((*comm)->Permute("collective-permute.1", ConstBytes(&byte, 1),
                               {3}, std::nullopt, MutableBytes(&byte, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "collective-permute.1: device 0 sends to device 3, "
                       "not one of the run's 1"));
  const std::vector<int64_t> group = {0};
  EXPECT_THAT(
      (*comm)->AllGather({"all-gather.2", group, 0}, ConstBytes(&byte, 1),
                         {MutableBytes(&byte, 1)}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "all-gather.2: not run, an earlier collective failed: "
               "collective-permute.1: device 0 sends to device 3, not one of "
               "the run's 1"));
}

}  // namespace
}  // namespace mxla

int main(int argc, char** argv) {
  if (argc > 1 && absl::StartsWith(argv[1], mxla::gloo_test::kChildFlag)) {
    return mxla::gloo_test::ChildMain(argc, argv);
  }
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
