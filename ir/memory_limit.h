// The memory limit: the most bytes mxla allocates for one computation's
// values. Requests past it are InvalidArgument errors before anything is
// allocated, so an f32[100000,100000,100] result is a clear message rather
// than an out-of-memory abort. Compile checks a JIT program's result plus
// temporaries, the interpreter every value it would hold, the builder and
// the .npy reader the constants and arrays they create.
//
// Process-wide and thread-safe. The default is the machine's physical
// memory.
#ifndef MXLA_IR_MEMORY_LIMIT_H_
#define MXLA_IR_MEMORY_LIMIT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/shape.h"

namespace mxla {

int64_t MemoryLimitBytes();
// `bytes` <= 0 restores the default.
void SetMemoryLimitBytes(int64_t bytes);

// InvalidArgument if `bytes` exceeds the limit: "<what> needs N bytes, over
// the memory limit of L bytes (see SetMemoryLimitBytes)".
absl::Status CheckMemoryLimit(int64_t bytes, absl::string_view what);

// The bytes of every array in a valid shape (a tuple's elements summed),
// saturating at INT64_MAX.
int64_t TotalArrayBytes(const Shape& shape);

}  // namespace mxla

#endif  // MXLA_IR_MEMORY_LIMIT_H_
