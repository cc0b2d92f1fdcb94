// How the backend spreads independent work (one job per distinct kernel:
// emitting, optimizing and generating its code) over threads, without
// depending on the runtime's pool: the caller passes a runner.
#ifndef MXLA_CODEGEN_PARALLEL_TASKS_H_
#define MXLA_CODEGEN_PARALLEL_TASKS_H_

#include <cstdint>
#include <functional>

namespace mxla {

// Calls task(0), ..., task(count - 1), possibly at once on several threads;
// returns when all have run.
using ParallelTasks = std::function<void(
    int64_t count, const std::function<void(int64_t)>& task)>;

// A runner that calls the tasks one after another on the caller's thread.
inline ParallelTasks SequentialTasks() {
  return [](int64_t count, const std::function<void(int64_t)>& task) {
    for (int64_t i = 0; i < count; ++i) task(i);
  };
}

}  // namespace mxla

#endif  // MXLA_CODEGEN_PARALLEL_TASKS_H_
