#include "tests/testlib/aot_harness.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tool_runner.h"

namespace mxla::testing {
namespace {

namespace fs = std::filesystem;

using ::testing::HasSubstr;

// A C harness for one compiled function: reads each argument buffer from a
// file, runs NAME (threads == 0) or NAME_parallel with a pthread
// parallel_for, writes each result buffer to a file and prints how many
// kernels went through parallel_for. With DONATE set in its environment,
// each aliased result buffer is its argument's (`aliases`); without, it
// fails (exit 5) if the call changed an argument.
std::string Harness(const std::string& name, int64_t args, int64_t results,
                    const std::vector<AliasedLeaf>& aliases) {
  std::string donate;
  for (const AliasedLeaf& alias : aliases) {
    absl::StrAppend(&donate, "    results[", alias.result_leaf,
                    "] = (void*)args[", alias.argument_leaf, "];\n");
  }
  const std::string upper = absl::AsciiStrToUpper(name);
  std::vector<std::string> arg_bytes = {"0"}, result_bytes;
  for (int64_t i = 0; i < args; ++i) {
    arg_bytes.push_back(absl::StrCat(upper, "_ARG", i, "_BYTES"));
  }
  for (int64_t i = 0; i < results; ++i) {
    result_bytes.push_back(absl::StrCat(upper, "_RESULT", i, "_BYTES"));
  }
  return absl::StrCat(R"(#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include ")",
                      name, R"(.h"

typedef struct {
  mxla_aot_kernel kernel;
  void* const* buffers;
  int64_t begin, end;
} Chunk;

static void* RunChunk(void* p) {
  Chunk* c = (Chunk*)p;
  c->kernel(c->buffers, c->begin, c->end);
  return NULL;
}

static int parallel_calls = 0;

/* One thread per chunk: min(threads, max_chunks, units) chunks. */
static void ParallelFor(void* pool, mxla_aot_kernel kernel,
                        void* const* buffers, int64_t units,
                        int64_t max_chunks) {
  int64_t chunks = *(int*)pool;
  if (chunks > max_chunks) chunks = max_chunks;
  if (chunks > units) chunks = units;
  if (chunks > 64) chunks = 64;
  pthread_t threads[64];
  Chunk parts[64];
  for (int64_t i = 0; i < chunks; ++i) {
    parts[i].kernel = kernel;
    parts[i].buffers = buffers;
    parts[i].begin = units * i / chunks;
    parts[i].end = units * (i + 1) / chunks;
    pthread_create(&threads[i], NULL, RunChunk, &parts[i]);
  }
  for (int64_t i = 0; i < chunks; ++i) pthread_join(threads[i], NULL);
  ++parallel_calls;
}

int main(int argc, char** argv) {
  const long arg_bytes[] = {)",
                      absl::StrJoin(arg_bytes, ", "), R"(};
  const long result_bytes[] = {)",
                      absl::StrJoin(result_bytes, ", "), R"(};
  enum { kArgs = )",
                      args, R"(, kResults = )", results, R"( };
  if (argc != 2 + kArgs + kResults) return 2;
  int threads = atoi(argv[1]);
  const void* args[kArgs + 1];
  void* results[kResults];
  for (int i = 0; i < kArgs; ++i) {
    void* data = malloc(arg_bytes[i + 1] + 1);
    FILE* in = fopen(argv[2 + i], "rb");
    if (!in || fread(data, 1, arg_bytes[i + 1], in) != (size_t)arg_bytes[i + 1]) return 3;
    fclose(in);
    args[i] = data;
  }
  for (int i = 0; i < kResults; ++i) results[i] = malloc(result_bytes[i] + 1);
  const int donate = getenv("DONATE") != NULL;
  void* before[kArgs + 1];
  for (int i = 0; i < kArgs; ++i) {
    before[i] = malloc(arg_bytes[i + 1] + 1);
    memcpy(before[i], args[i], arg_bytes[i + 1]);
  }
  if (donate) {
)",
                      donate, R"(  }
  void* temp = NULL;
  if ()",
                      upper, R"(_TEMP_BYTES > 0) {
    temp = aligned_alloc(64, ()",
                      upper, R"(_TEMP_BYTES + 63) / 64 * 64);
  }
  if (threads == 0) {
    )",
                      name, R"((args, results, temp);
  } else {
    )",
                      name,
                      R"(_parallel(args, results, temp, ParallelFor, &threads);
  }
  for (int i = 0; i < kArgs && !donate; ++i) {
    if (memcmp(before[i], args[i], arg_bytes[i + 1]) != 0) return 5;
  }
  for (int i = 0; i < kResults; ++i) {
    FILE* out = fopen(argv[2 + kArgs + i], "wb");
    if (!out || fwrite(results[i], 1, result_bytes[i], out) != (size_t)result_bytes[i]) return 4;
    fclose(out);
  }
  printf("parallel_calls=%d\n", parallel_calls);
  return 0;
}
)");
}

struct Built {
  std::string program;  // the linked C program
  std::string object;
};

// `mxla compile` + `cc`: the module as a C program linked with its object.
absl::StatusOr<Built> BuildC(const std::string& name, const std::string& hlo,
                             const std::string& flags, int64_t args,
                             int64_t results,
                             const std::vector<AliasedLeaf>& aliases) {
  const std::string dir = TempPath(absl::StrCat("aot_", name));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string hlo_path = absl::StrCat(dir, "/", name, ".hlo");
  std::ofstream(hlo_path) << hlo;
  ToolResult compiled = RunMxla(
      absl::StrCat("compile ", hlo_path, " -o ", dir, "/", name, " ", flags));
  if (compiled.exit_code != 0) {
    return absl::InternalError("mxla compile: " + compiled.err);
  }
  const std::string main_path = absl::StrCat(dir, "/main.c");
  std::ofstream(main_path) << Harness(name, args, results, aliases);
  Built built{absl::StrCat(dir, "/prog"), absl::StrCat(dir, "/", name, ".o")};
  const std::string cc = absl::StrCat(
      "cc -std=c11 -O1 -Wall -Werror -I", dir, " ", main_path, " ",
      built.object, " -lm -lpthread -o ", built.program, " 2>", dir, "/cc.log");
  if (std::system(cc.c_str()) != 0) {
    return absl::InternalError("cc failed: " + ReadFile(dir + "/cc.log"));
  }
  return built;
}

// Runs the C program on `arguments` and returns its result leaves.
absl::StatusOr<std::vector<Literal>> RunC(const Built& built,
                                          const std::vector<Literal>& arguments,
                                          const Shape& result, int threads,
                                          bool donate,
                                          std::string* stdout_text) {
  std::vector<const Literal*> leaves;
  for (const Literal& argument : arguments)
    CollectArrayLeaves(argument, leaves);
  std::string command = absl::StrCat(donate ? "DONATE=1 " : "",
                                     built.program, " ", threads);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::string path = WriteTempFile(
        absl::StrCat("aot_arg", i),
        std::string(static_cast<const char*>(leaves[i]->untyped_data()),
                    leaves[i]->size_bytes()));
    absl::StrAppend(&command, " ", path);
  }
  std::vector<Shape> result_shapes;
  ForEachArrayLeaf(result,
                   [&](const Shape& shape) { result_shapes.push_back(shape); });
  for (size_t i = 0; i < result_shapes.size(); ++i) {
    absl::StrAppend(&command, " ", TempPath(absl::StrCat("aot_result", i)));
  }
  const std::string out = TempPath("aot_stdout");
  if (std::system(absl::StrCat(command, " >", out).c_str()) != 0) {
    return absl::InternalError(
        "the C program failed (exit 5: it changed an argument it was not "
        "donated): " + command);
  }
  *stdout_text = ReadFile(out);
  std::vector<Literal> values;
  for (size_t i = 0; i < result_shapes.size(); ++i) {
    Literal literal(result_shapes[i]);
    const std::string bytes = ReadFile(TempPath(absl::StrCat("aot_result", i)));
    if (static_cast<int64_t>(bytes.size()) != literal.size_bytes()) {
      return absl::InternalError("short result file");
    }
    std::copy(bytes.begin(), bytes.end(),
              static_cast<char*>(literal.untyped_data()));
    values.push_back(std::move(literal));
  }
  return values;
}

}  // namespace

std::string ExpectMatchesInterpreter(const std::string& name,
                                     const std::string& hlo,
                                     const std::vector<Literal>& arguments,
                                     const std::string& flags, int threads,
                                     double tolerance) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_OK(module.status());
  if (!module.ok()) return "";
  const HloComputation& entry = *(*module)->entry_computation();
  CompileOptions interpret;
  interpret.backend = Backend::kInterpreter;
  absl::StatusOr<std::unique_ptr<Executable>> interpreter =
      Compile(**module, interpret);
  EXPECT_OK(interpreter.status());
  if (!interpreter.ok()) return "";
  absl::StatusOr<Literal> expected = (*interpreter)->Run(Pointers(arguments));
  EXPECT_OK(expected.status());
  if (!expected.ok()) return "";
  std::vector<Literal*> expected_leaves;
  CollectArrayLeaves(*expected, expected_leaves);
  absl::StatusOr<std::vector<AliasedLeaf>> aliases =
      ResolveInputOutputAliases(**module);
  EXPECT_OK(aliases.status());
  if (!aliases.ok()) return "";
  absl::StatusOr<Built> built =
      BuildC(name, hlo, flags, CountArgumentLeaves(entry),
             CountResultLeaves(entry), *aliases);
  EXPECT_OK(built.status());
  if (!built.ok()) return "";
  std::string parallel_stdout;
  // With aliases, every run again with the aliased arguments donated.
  const int runs = aliases->empty() ? 2 : 4;
  for (int run = 0; run < runs; ++run) {
    const int t = run % 2 == 0 ? 0 : threads;
    const bool donate = run >= 2;
    std::string text;
    absl::StatusOr<std::vector<Literal>> actual =
        RunC(*built, arguments, entry.root_instruction()->shape(), t, donate,
             &text);
    EXPECT_OK(actual.status());
    if (!actual.ok()) continue;
    EXPECT_EQ(actual->size(), expected_leaves.size());
    for (size_t i = 0; i < actual->size() && i < expected_leaves.size(); ++i) {
      EXPECT_OK(
          LiteralUtil::Near(*expected_leaves[i], (*actual)[i], tolerance, 1e-5))
          << name << " result leaf " << i << " threads " << t
          << (donate ? " donated" : "");
    }
    if (t > 0 && !donate) parallel_stdout = text;
  }
  // The object needs only C libraries: no C++ or LLVM symbol, nothing of
  // mxla's runtime.
  const std::string undefined = TempPath("aot_undefined");
  EXPECT_EQ(std::system(
                absl::StrCat("nm -u ", built->object, " >", undefined).c_str()),
            0);
  const std::string symbols = ReadFile(undefined);
  EXPECT_THAT(symbols, ::testing::Not(HasSubstr("_Z"))) << symbols;
  EXPECT_THAT(symbols, ::testing::Not(HasSubstr("mxla"))) << symbols;
  EXPECT_THAT(symbols, ::testing::Not(HasSubstr("llvm"))) << symbols;
  return parallel_stdout;
}

std::vector<Literal> SeededArguments(const HloComputation& entry,
                                     uint64_t seed) {
  std::vector<Literal> arguments;
  uint64_t state = seed;
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    arguments.emplace_back(entry.parameter_instruction(number)->shape());
    std::vector<Literal*> leaves;
    CollectArrayLeaves(arguments.back(), leaves);
    for (Literal* leaf : leaves) {
      primitive_util::ArrayTypeSwitch(
          leaf->shape().element_type(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            T* data = static_cast<T*>(leaf->untyped_data());
            for (int64_t i = 0; i < leaf->element_count(); ++i) {
              state = state * 6364136223846793005u + 1442695040888963407u;
              const uint32_t bits = static_cast<uint32_t>(state >> 33);
              if constexpr (std::is_same_v<T, bool>) {
                data[i] = (bits & 1) != 0;
              } else if constexpr (std::is_unsigned_v<T>) {
                data[i] = static_cast<T>(bits % 17);
              } else if constexpr (std::is_integral_v<T>) {
                data[i] = static_cast<T>(static_cast<int>(bits % 17) - 8);
              } else {
                data[i] = static_cast<T>(
                    static_cast<float>(bits / 2147483648.0 - 1.0));
              }
            }
          });
    }
  }
  return arguments;
}

}  // namespace mxla::testing
