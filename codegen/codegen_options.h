// Options of the LLVM backend that change the generated code. They are part
// of the compile-cache key.
#ifndef MXLA_CODEGEN_CODEGEN_OPTIONS_H_
#define MXLA_CODEGEN_CODEGEN_OPTIONS_H_

#include <cstdint>

namespace mxla {

struct CodegenOptions {
  // Lets float add/multiply reducers be reassociated so that reductions over
  // a contiguous dimension use vector accumulators. Results then differ from
  // the interpreter's sequential order by rounding only (see README:
  // "Numerics"); off gives the interpreter's bits exactly.
  bool reassociate_reductions = true;
  // Loop fusions whose result (an entry result) has at least this many bytes
  // store it with non-temporal stores (streaming_store_emitter.h), which
  // skip reading the lines they overwrite; 0 turns them off.
  int64_t streaming_store_min_bytes = int64_t{8} << 20;
  // LLVM optimization level, 0 to 3.
  int optimization_level = 3;

  bool operator==(const CodegenOptions&) const = default;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_CODEGEN_OPTIONS_H_
