// A transformer-like stack of layers, the graph compile time is measured on
// (`mxla bench --filter S`, issue 19) and the persistent cache and
// ahead-of-time compilation are tested with. Each layer is a pre-norm MLP
// block on x: f32[rows, width]:
//
//   y = layer_norm(x) * gamma + beta        (row statistics, keepdims)
//   h = gelu(y @ w1 + b1)                   (tanh form; w1: [width, 4 width])
//   x = x + (h @ w2 + b2)                   (w2: [4 width, width])
//
// with its six weights as parameters (x is parameter 0, then gamma, beta,
// w1, b1, w2, b2 of layer 0, of layer 1, ...), so the module stays small
// whatever the sizes.
#ifndef MXLA_TOOLS_MODEL_STACK_H_
#define MXLA_TOOLS_MODEL_STACK_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"
#include "ir/literal.h"

namespace mxla::examples {

struct StackShape {
  int64_t layers = 1;
  int64_t rows = 64;
  int64_t width = 256;
};

absl::StatusOr<XlaComputation> BuildModelStack(const StackShape& shape);

// Deterministic arguments for BuildModelStack(shape), in parameter order:
// small weights, so that 24 layers stay well inside f32's range.
std::vector<Literal> ModelStackArguments(const StackShape& shape);

}  // namespace mxla::examples

#endif  // MXLA_TOOLS_MODEL_STACK_H_
