// A copy whose destination is written with non-temporal (streaming)
// stores, which do not read the destination's lines into the cache before
// overwriting them: for large results that their consumer will not find in
// the cache anyway, it saves one read of every line written, as the JIT's
// streaming stores do (ir/fusion_plan_options.h) and glibc's memcpy does
// for large copies. On targets without SSE2 it is memcpy.
#ifndef MXLA_RUNTIME_STREAMING_COPY_H_
#define MXLA_RUNTIME_STREAMING_COPY_H_

#include <cstdint>

namespace mxla {

// to[0, bytes) = from[0, bytes); the ranges must not overlap. Any
// alignment: the bytes before `to`'s first 16-byte boundary and the last
// partial 16 are copied with ordinary stores.
void StreamingCopy(char* to, const char* from, int64_t bytes);

// Streaming stores are weakly ordered: call this after the last
// StreamingCopy and before another thread may read what it wrote (before
// releasing the lock or signalling the condition that publishes it).
void StreamingCopyFence();

}  // namespace mxla

#endif  // MXLA_RUNTIME_STREAMING_COPY_H_
