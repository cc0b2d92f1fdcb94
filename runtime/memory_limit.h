// The runtime's memory limit: the default budget (ir/memory_budget.h) of
// Compile and Run when CompileOptions::memory_limit_bytes or
// RunOptions::memory_limit_bytes is unset. Compile checks a JIT program's
// result plus temporaries against it, the interpreter every value it would
// hold.
//
// Process-wide and thread-safe. The default is the machine's physical
// memory.
#ifndef MXLA_RUNTIME_MEMORY_LIMIT_H_
#define MXLA_RUNTIME_MEMORY_LIMIT_H_

#include <cstdint>
#include <optional>

#include "ir/memory_budget.h"

namespace mxla {

int64_t MemoryLimitBytes();
// `bytes` <= 0 restores the default.
void SetMemoryLimitBytes(int64_t bytes);

// `bytes` if set, else MemoryLimitBytes().
int64_t MemoryLimitOr(std::optional<int64_t> bytes);

}  // namespace mxla

#endif  // MXLA_RUNTIME_MEMORY_LIMIT_H_
