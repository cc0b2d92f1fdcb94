// Options of the LLVM backend that change the generated code. They are part
// of the compile-cache key.
#ifndef MXLA_CODEGEN_CODEGEN_OPTIONS_H_
#define MXLA_CODEGEN_CODEGEN_OPTIONS_H_

#include <cstdint>

namespace mxla {

struct CodegenOptions {
  // Lets plain float add/multiply reducers (root = that op of the two
  // parameters, one output; no other reducer, variadic or compensated) be
  // reassociated: reductions over a contiguous dimension use vector
  // accumulators, and reductions to few outputs sum fixed chunks in
  // parallel. Results then differ from the interpreter's sequential order by
  // rounding only, and never depend on the thread count (see README:
  // "Numerics"); off gives the interpreter's bits exactly.
  bool reassociate_reductions = true;
  // Loop and row fusions whose result (an entry result) has at least this
  // many bytes store it with non-temporal stores of the host's vector width
  // (streaming_store_emitter.h), which skip reading the lines they
  // overwrite, whatever the row length; 0 turns them off.
  int64_t streaming_store_min_bytes = int64_t{8} << 20;
  // LLVM optimization level, 0 to 3, of both the IR pipeline and the
  // machine code generator; other values are InvalidArgument.
  int optimization_level = 3;

  bool operator==(const CodegenOptions&) const = default;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_CODEGEN_OPTIONS_H_
