// `mxla run --processes N` (tools/run_processes.h): the test launches 2 and 4
// processes of the built `mxla` on loopback, one device each or two, and
// checks that every device's result files hold the in-process run's bytes;
// and that a device that never arrives, or whose process is killed, fails
// the others quickly with an error naming it. Every launch is killed at a
// deadline, so the test ends whatever mxla does.
//
// The test binary is also the killed peer: with kPeerFlag it joins a run as
// one device (GlooCommunicator::Connect, as mxla does) and is killed.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/gloo_communicator.h"
#include "distributed/local_processes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/literal.h"
#include "runtime/npy.h"
#include "tests/testlib/read_file.h"

namespace mxla {
namespace {

using ::mxla::testing::ReadFile;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kPeerFlag[] = "--mxla_run_peer";
using Clock = std::chrono::steady_clock;

// A fresh directory, removed at the end.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = ::testing::TempDir() + "mxla_processes_XXXXXX";
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDirectory() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  std::string operator/(const std::string& name) const {
    return path_ + "/" + name;
  }

 private:
  std::string path_;
};

struct Ended {
  int exit_code = -1;  // -1 when killed or crashed
  std::string out, err;
};

struct Launch {
  std::vector<Ended> processes;
  double seconds = 0;  // until the last one ended
};

// Runs each command line (`program` and its arguments, shell words
// without quotes) at once, its output in files under `dir`; every process
// still running after 30 s is killed.
Launch RunAll(const TempDirectory& dir,
              const std::vector<std::string>& commands) {
  std::vector<std::vector<std::string>> arguments;
  for (size_t i = 0; i < commands.size(); ++i) {
    arguments.push_back(
        {"-c", absl::StrCat("exec ", commands[i], " >", dir / "out", i, " 2>",
                            dir / "err", i)});
  }
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::vector<ProcessEnd>> ends =
      RunLocalProcesses("/bin/sh", arguments, std::chrono::seconds(30));
  Launch launch;
  launch.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(ends.ok()) << ends.status();
  if (!ends.ok()) return launch;
  for (size_t i = 0; i < commands.size(); ++i) {
    const ProcessEnd& end = (*ends)[i];
    EXPECT_FALSE(end.killed_at_deadline) << commands[i];
    launch.processes.push_back({end.exited ? end.exit_code : -1,
                                ReadFile(dir / absl::StrCat("out", i)),
                                ReadFile(dir / absl::StrCat("err", i))});
  }
  return launch;
}

std::string Mxla(const std::string& args) {
  return absl::StrCat(MXLA_TOOL_PATH, " ", args);
}

// `mxla run` of one process of `processes` meeting in `rendezvous`.
std::string ProcessCommand(const std::string& run, int process, int processes,
                           const std::string& rendezvous,
                           double timeout_seconds = 20) {
  return Mxla(absl::StrCat(run, " --processes ", processes, " --process-id ",
                           process, " --rendezvous ", rendezvous,
                           " --collective-timeout ", timeout_seconds));
}

// A module on `replicas` x `partitions` devices (one partition: cross-replica
// collectives; two: cross-partition ones too), and its inputs.
struct Case {
  int replicas = 1;
  int partitions = 1;
  int devices() const { return replicas * partitions; }
};

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// all-reduce, all-gather, collective-permute around a ring of replicas,
// replica-id, a ragged-all-to-all of one row per pair of replicas; with partitions, an all-reduce over all devices
// (use_global_device_ids), a permute between partitions and partition-id.
std::string ModuleText(const Case& c) {
  std::vector<std::string> ring;
  for (int r = 0; r < c.replicas; ++r) {
    ring.push_back(absl::StrCat("{", r, ",", (r + 1) % c.replicas, "}"));
  }
  std::string text = absl::StrCat(
      "HloModule collectives\n", kAdd, R"(
ENTRY main {
  x = f32[4] parameter(0)
  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  ag = f32[)",
      4 * c.replicas, R"(] all-gather(x), dimensions={0}, replica_groups={}
  cp = f32[4] collective-permute(ar), source_target_pairs={)",
      absl::StrJoin(ring, ","), R"(}
  r = u32[] replica-id()
)");
  // ragged-all-to-all: replica s sends each replica j its row j, which
  // lands at row s of j's copy of ar (replicas <= 4).
  absl::StrAppend(&text, "  one = s32[] constant(1)\n  ones = s32[",
                  c.replicas, "] broadcast(one), dimensions={}\n  rows = s32[",
                  c.replicas, "] iota(), iota_dimension=0\n",
                  "  rank = s32[] convert(r)\n  at = s32[", c.replicas,
                  "] broadcast(rank), dimensions={}\n",
                  "  ra = f32[4] ragged-all-to-all(x, ar, rows, ones, at, "
                  "ones), replica_groups={}\n");
  if (c.partitions == 1) {
    absl::StrAppend(&text, "  ROOT t = (f32[4], f32[", 4 * c.replicas,
                    "], f32[4], u32[], f32[4]) tuple(ar, ag, cp, r, ra)\n}\n");
    return text;
  }
  std::vector<std::string> all;
  for (int d = 0; d < c.devices(); ++d) all.push_back(absl::StrCat(d));
  absl::StrAppend(
      &text, "  g = f32[4] all-reduce(cp), channel_id=1, replica_groups={{",
      absl::StrJoin(all, ","), "}}, use_global_device_ids=true, to_apply=add\n",
      "  pp = f32[4] collective-permute(g), channel_id=2, "
      "source_target_pairs={{0,1},{1,0}}\n",
      "  p = u32[] partition-id()\n", "  ROOT t = (f32[4], f32[",
      4 * c.replicas, "], f32[4], u32[], f32[4], f32[4], u32[], f32[4]) ",
      "tuple(ar, ag, cp, r, g, pp, p, ra)\n}\n");
  return text;
}

// Device d's input: magnitudes far apart, so that a sum in another order
// would round differently.
Literal InputOf(int d) {
  const float big = 1e8f * static_cast<float>(d % 2 == 0 ? 1 : -1);
  return LiteralUtil::CreateR1<float>(
      {big, 1.0f + 0.1f * d, 3.3f * d - big, 0.7f / (d + 1)});
}

// Writes the module and the inputs; returns `mxla run FILE -i D:0=...` for
// the case's devices (without the output flag).
std::string WriteCase(const TempDirectory& dir, const Case& c) {
  const std::string hlo = dir / "module.hlo";
  std::ofstream(hlo) << ModuleText(c);
  std::string run = absl::StrCat("run ", hlo, " --replicas ", c.replicas,
                                 " --partitions ", c.partitions);
  for (int d = 0; d < c.devices(); ++d) {
    const std::string path = dir / absl::StrCat("x", d, ".npy");
    absl::StatusOr<std::string> bytes = SerializeNpy(InputOf(d));
    EXPECT_TRUE(bytes.ok());
    std::ofstream(path, std::ios::binary) << bytes.value_or("");
    absl::StrAppend(&run, " -i ", d, ":0=", path);
  }
  return run;
}

// Every file under `expected`'s device<D>/ is in `got` with the same bytes.
void ExpectSameFiles(const std::string& expected, const std::string& got,
                     int devices) {
  for (int d = 0; d < devices; ++d) {
    const std::string device = absl::StrCat("/device", d);
    ASSERT_TRUE(std::filesystem::is_directory(expected + device)) << d;
    int files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(expected + device)) {
      const std::string name = entry.path().filename();
      EXPECT_EQ(ReadFile(entry.path()), ReadFile(got + device + "/" + name))
          << "device " << d << ", " << name;
      ++files;
    }
    EXPECT_GE(files, 4) << "device " << d;
  }
}

// The in-process run's files of the case, under dir/in_process/.
void RunInProcess(const TempDirectory& dir, const std::string& run) {
  Launch reference = RunAll(dir, {Mxla(run + " -o " + dir / "in_process/")});
  ASSERT_EQ(reference.processes.size(), 1);
  ASSERT_EQ(reference.processes[0].exit_code, 0) << reference.processes[0].err;
}

// Runs `commands` (given the case's run with its -o) and checks that each
// exits 0 and that the files are the in-process run's.
void ExpectSameAsInProcess(
    const Case& c,
    const std::function<std::vector<std::string>(
        const TempDirectory& dir, const std::string& run)>& commands) {
  TempDirectory dir;
  const std::string run = WriteCase(dir, c);
  RunInProcess(dir, run);
  Launch launch = RunAll(dir, commands(dir, run + " -o " + dir / "processes/"));
  for (size_t i = 0; i < launch.processes.size(); ++i) {
    EXPECT_EQ(launch.processes[i].exit_code, 0)
        << "process " << i << ": " << launch.processes[i].err;
  }
  ExpectSameFiles(dir / "in_process", dir / "processes", c.devices());
}

// The case over `processes` processes, started with --processes and
// --process-id.
void ExpectSameAsInProcess(const Case& c, int processes) {
  ExpectSameAsInProcess(
      c, [&](const TempDirectory& dir, const std::string& run) {
        std::vector<std::string> commands;
        for (int i = 0; i < processes; ++i) {
          commands.push_back(ProcessCommand(run, i, processes, dir / "meet"));
        }
        return commands;
      });
}

TEST(MxlaRunProcessesTest, TwoProcessesGiveTheInProcessBits) {
  ExpectSameAsInProcess({2, 1}, 2);
}

TEST(MxlaRunProcessesTest, FourProcessesGiveTheInProcessBits) {
  ExpectSameAsInProcess({4, 1}, 4);
}

TEST(MxlaRunProcessesTest, FourPartitionedDevicesOnFourProcesses) {
  ExpectSameAsInProcess({2, 2}, 4);
}

// Two devices per process, each on a thread with its own communicator.
TEST(MxlaRunProcessesTest, FourPartitionedDevicesOnTwoProcesses) {
  ExpectSameAsInProcess({2, 2}, 2);
}

// mpirun gives each copy its rank and size in the environment.
TEST(MxlaRunProcessesTest, MpirunsRankAndSizeFromTheEnvironment) {
  ExpectSameAsInProcess(
      {2, 1}, [](const TempDirectory& dir, const std::string& run) {
        return std::vector<std::string>{
            absl::StrCat("env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 ",
                         Mxla(run), " --rendezvous ", dir / "meet"),
            absl::StrCat("env PMI_SIZE=2 PMI_RANK=1 ", Mxla(run),
                         " --rendezvous ", dir / "meet")};
      });
}

// One command starts the copies.
TEST(MxlaRunProcessesTest, LocalProcessesStartsTheCopies) {
  ExpectSameAsInProcess(
      {2, 2}, [](const TempDirectory&, const std::string& run) {
        return std::vector<std::string>{Mxla(run + " --local-processes 4")};
      });
}

TEST(MxlaRunProcessesTest, LocalProcessesNamesTheCopiesThatFailed) {
  TempDirectory dir;
  std::string run = WriteCase(dir, {2, 1});
  // Device 1 has no input: process 1 fails before the rendezvous, and
  // process 0 when the timeout ends.
  run = run.substr(0, run.find(" -i 1:0="));
  Launch launch =
      RunAll(dir, {Mxla(run + " --local-processes 2 --collective-timeout 1")});
  ASSERT_EQ(launch.processes.size(), 1);
  const Ended& ended = launch.processes[0];
  EXPECT_EQ(ended.exit_code, 1);
  EXPECT_THAT(ended.err,
              AllOf(HasSubstr("error: device 1: missing input for "
                              "parameter 0"),
                    HasSubstr("error: device 0 (process 0 of 2): gloo "
                              "rendezvous of run 'mxla-run' in '"),
                    HasSubstr("device 1 did not arrive within 1000 ms"),
                    HasSubstr("error: --local-processes 2: process 0 exited "
                              "with 1, process 1 exited with 1 (their errors "
                              "are above)")));
  EXPECT_LT(launch.seconds, 10);
}

// Printed results name each process's own devices.
TEST(MxlaRunProcessesTest, EachProcessPrintsItsDevices) {
  TempDirectory dir;
  const std::string run = WriteCase(dir, {4, 1});
  Launch launch = RunAll(dir, {ProcessCommand(run, 0, 2, dir / "meet"),
                               ProcessCommand(run, 1, 2, dir / "meet")});
  ASSERT_EQ(launch.processes.size(), 2);
  EXPECT_EQ(launch.processes[0].exit_code, 0) << launch.processes[0].err;
  EXPECT_THAT(launch.processes[0].out,
              AllOf(StartsWith("device 0 (replica 0, partition 0): ("),
                    HasSubstr("\ndevice 1 (replica 1, partition 0): (")));
  EXPECT_THAT(launch.processes[1].out,
              AllOf(StartsWith("device 2 (replica 2, partition 0): ("),
                    HasSubstr("\ndevice 3 (replica 3, partition 0): (")));
}

TEST(MxlaRunProcessesTest, AProcessThatNeverArrivesIsNamed) {
  TempDirectory dir;
  const std::string run = WriteCase(dir, {4, 1});
  // Process 2 of 4 (device 2) is never started.
  std::vector<std::string> commands;
  for (int i : {0, 1, 3}) {
    commands.push_back(ProcessCommand(run, i, 4, dir / "meet", 1.5));
  }
  Launch launch = RunAll(dir, commands);
  ASSERT_EQ(launch.processes.size(), 3);
  for (const Ended& ended : launch.processes) {
    EXPECT_EQ(ended.exit_code, 1) << ended.err;
    EXPECT_THAT(ended.err,
                AllOf(StartsWith("error: device "),
                      HasSubstr(" of 4): gloo rendezvous of run 'mxla-run' "
                                "in '"),
                      HasSubstr("': device 2 did not arrive within 1500 ms"),
                      HasSubstr("were all 4 processes started, with the same "
                                "--rendezvous")));
  }
  // The timeout, and the compile before it, give or take a busy machine.
  EXPECT_LT(launch.seconds, 10);
}

// The peer: joins run `argv[3]` in directory `argv[2]` as the last device
// of `argv[4]`, waits until mxla is at its first collective, and is killed.
int PeerMain(char** argv) {
  const int devices = std::atoi(argv[4]);
  absl::StatusOr<std::unique_ptr<GlooCommunicator>> communicator =
      GlooCommunicator::Connect(
          devices - 1, devices,
          {argv[2], argv[3], "127.0.0.1", std::chrono::seconds(10)});
  if (!communicator.ok()) return 2;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  raise(SIGKILL);
  return 3;
}

// Runs `processes` - 1 processes of mxla, one device each, and the peer as
// the last; returns how the mxla processes ended.
std::vector<Ended> KillTheLast(int processes) {
  TempDirectory dir;
  const std::string run = WriteCase(dir, {processes, 1});
  std::filesystem::create_directory(dir / "meet");
  // A timeout of 20 s: the errors must come from the closed connections.
  std::vector<std::string> commands;
  for (int i = 0; i + 1 < processes; ++i) {
    commands.push_back(ProcessCommand(run, i, processes, dir / "meet", 20));
  }
  commands.push_back(
      absl::StrCat(std::filesystem::read_symlink("/proc/self/exe").string(),
                   " ", kPeerFlag, " ", dir / "meet", " mxla-run ", processes));
  Launch launch = RunAll(dir, commands);
  EXPECT_LT(launch.seconds, 10);
  if (launch.processes.size() != static_cast<size_t>(processes)) return {};
  EXPECT_EQ(launch.processes.back().exit_code, -1) << "the peer was not killed";
  launch.processes.pop_back();
  return launch.processes;
}

TEST(MxlaRunProcessesTest, AKilledProcessFailsTheOtherAtOnce) {
  const std::vector<Ended> ended = KillTheLast(2);
  ASSERT_EQ(ended.size(), 1);
  EXPECT_EQ(ended[0].exit_code, 1) << ended[0].err;
  EXPECT_THAT(ended[0].err,
              AllOf(StartsWith("error: device 0 (process 0 of 2): "),
                    HasSubstr("the connection to device 1 closed or failed, "
                              "as when its process has failed or exited")));
}

TEST(MxlaRunProcessesTest, AKilledProcessFailsTheOthersAmongFour) {
  const std::vector<Ended> ended = KillTheLast(4);
  ASSERT_EQ(ended.size(), 3);
  for (size_t i = 0; i < ended.size(); ++i) {
    EXPECT_EQ(ended[i].exit_code, 1) << ended[i].err;
    // Device 3, or a device that failed on it first and closed its
    // connections: either is named.
    EXPECT_THAT(ended[i].err,
                AllOf(StartsWith(absl::StrCat("error: device ", i, " (process ",
                                              i, " of 4): ")),
                      HasSubstr("the connection to device "),
                      HasSubstr(" closed or failed, as when its process has "
                                "failed or exited")));
  }
}

// One process's mxla, with `flags` after the case's run.
Ended RunOne(const TempDirectory& dir, const std::string& run,
             const std::string& flags) {
  Launch launch = RunAll(dir, {Mxla(absl::StrCat(run, " ", flags))});
  return launch.processes.empty() ? Ended{} : launch.processes[0];
}

TEST(MxlaRunProcessesTest, FlagsThatCannotWorkAreRefusedByName) {
  TempDirectory dir;
  const std::string run = WriteCase(dir, {2, 1});
  const std::string meet = "--rendezvous " + dir / "meet";
  const std::pair<std::string, std::string> cases[] = {
      {"--processes 2 --process-id 0",
       "--processes 2: a run over processes needs --rendezvous DIR, the "
       "directory where the processes meet"},
      {"--processes 2 " + meet,
       "--processes 2: pass --process-id I (0 to 1), this process's place "
       "in the run"},
      {"--processes 2 --process-id 2 " + meet,
       "--process-id 2 is not one of the 2 processes (0 to 1)"},
      {"--processes 3 --process-id 0 " + meet,
       "--processes 3: the run has 2 devices, and each process runs at least "
       "one: pass at most 2 processes, or more --replicas"},
      {"--process-id 0 " + meet,
       "--process-id is for a run over processes: pass --processes N, "
       "--process-id I and --rendezvous DIR with it"},
      {"--processes 2 --process-id 0 --collective-timeout 0 " + meet,
       "--collective-timeout 0: the timeout must be a positive number of "
       "seconds, from 0.001 to 1000000"},
      {"--processes 2 --process-id 0 --collective-timeout 1e9 " + meet,
       "--collective-timeout 1e+09: the timeout must be"},
      {"--processes 2 --process-id 0 --compare " + meet,
       "--compare: a run over processes is compared with nothing"},
      {"--processes 2 --process-id 0 --repeat 2 " + meet,
       "--repeat runs one device; this run has 2 replicas x 1 partitions"},
      {"--processes 2 --process-id 0 -o " + dir / "out.npy " + meet,
       "a run on 2 devices writes a directory per device: pass DIR/"},
      {"--local-processes 2 --process-id 0",
       "--local-processes 2 with --process-id: the copies get their own "
       "--processes, --process-id and --rendezvous; drop --process-id"},
      {"--local-processes 3", "--local-processes 3: the run has 2 devices"},
      {"--local-processes 2 --compare",
       "--compare: a run over processes is compared with nothing"},

  };
  for (const auto& [flags, message] : cases) {
    const Ended ended = RunOne(dir, run, flags);
    EXPECT_EQ(ended.exit_code, 1) << flags;
    EXPECT_THAT(ended.err, AllOf(StartsWith("error: "), HasSubstr(message)))
        << flags;
  }
  const Launch launch = RunAll(
      dir, {absl::StrCat("env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=x ",
                         Mxla(run), " ", meet)});
  ASSERT_EQ(launch.processes.size(), 1);
  EXPECT_EQ(launch.processes[0].err,
            "error: OMPI_COMM_WORLD_RANK='x' (from the launcher, for "
            "--process-id) is not a number\n");
  // None of them got as far as the rendezvous.
  EXPECT_FALSE(std::filesystem::exists(dir / "meet"));
}

}  // namespace
}  // namespace mxla

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == mxla::kPeerFlag) {
    return mxla::PeerMain(argv);
  }
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
