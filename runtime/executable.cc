#include "runtime/executable.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace mxla {
namespace {

absl::StatusOr<ThreadPool*> ResolvePool(const RunOptions& options) {
  if (options.thread_pool != nullptr) return options.thread_pool;
  return ThreadPool::Default();
}

}  // namespace

absl::StatusOr<Literal> Executable::Run(
    absl::Span<const Literal* const> arguments,
    const RunOptions& options) const {
  ASSIGN_OR_RETURN(RunThreads threads, ResolveThreads(options));
  return DoRun(arguments, threads);
}

absl::Status Executable::RunBuffers(absl::Span<const void* const> arguments,
                                    absl::Span<void* const> results,
                                    const RunOptions& options) const {
  ASSIGN_OR_RETURN(RunThreads threads, ResolveThreads(options));
  return DoRunBuffers(arguments, results, threads);
}

absl::StatusOr<Executable::RunThreads> Executable::ResolveThreads(
    const RunOptions& options) {
  if (options.threads.has_value()) {
    RETURN_IF_ERROR(CheckThreadCount(*options.threads, "RunOptions::threads"));
  }
  ASSIGN_OR_RETURN(ThreadPool * pool, ResolvePool(options));
  int threads = std::min(options.threads.value_or(pool->threads()),
                         pool->threads());
  return RunThreads{pool, threads};
}

absl::Status Executable::DoRunBuffers(absl::Span<const void* const> arguments,
                                      absl::Span<void* const> results,
                                      const RunThreads& threads) const {
  const HloComputation& entry = *module().entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry.num_parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", entry.num_parameters(),
                     " argument buffers, got ", arguments.size()));
  }
  std::vector<Literal> literals;
  std::vector<const Literal*> pointers;
  literals.reserve(arguments.size());
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    literals.emplace_back(entry.parameter_instruction(i)->shape());
    Literal& literal = literals.back();
    std::memcpy(literal.untyped_data(), arguments[i], literal.size_bytes());
    pointers.push_back(&literal);
  }
  ASSIGN_OR_RETURN(Literal result, DoRun(pointers, threads));
  std::vector<Literal*> leaves;
  if (result.shape().IsTuple()) {
    for (int64_t i = 0; i < result.tuple_size(); ++i) {
      leaves.push_back(&result.tuple_element(i));
    }
  } else {
    leaves.push_back(&result);
  }
  if (leaves.size() != results.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", leaves.size(), " result buffers, got ", results.size()));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::memcpy(results[i], leaves[i]->untyped_data(), leaves[i]->size_bytes());
  }
  return absl::OkStatus();
}

}  // namespace mxla
