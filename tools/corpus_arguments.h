// What `mxla stats` (and `mxla bench --filter M`) runs a module on:
// deterministic arguments, the same on every machine, and estimates of how
// large and costly a run is, to leave out what the interpreter would take
// minutes over.
#ifndef MXLA_TOOLS_CORPUS_ARGUMENTS_H_
#define MXLA_TOOLS_CORPUS_ARGUMENTS_H_

#include <cstdint>
#include <vector>

#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace mxla::tools {

// Fills `literal` (an array, a tuple or a token) with floats in [-1, 1),
// small integers and alternating booleans; `state` carries the generator
// from one literal to the next (start it at 1 for the arguments).
void FillDeterministic(Literal& literal, uint64_t& state);

// Fills the floating-point arrays of `literal` anew from `state`, leaving
// its integers and booleans (which, in a module, more often count, index or
// decide than carry data) as they are.
void RedrawFloats(Literal& literal, uint64_t& state);

// The elements of an array or of every leaf of a tuple.
int64_t ElementsOf(const Shape& shape);

// The element steps of running every instruction of every computation
// once: per result element, a windowed op's taps (times a convolution's
// input features) or a dot's contracted products; a reduce's or sort's
// inputs; else its result's elements. A loop body counts one trip; a
// reducer's scalar steps are counted by its reduce.
int64_t EstimatedWork(const HloModule& module);

// The entry's arguments, filled from `state` in parameter-number order
// (which need not be the text's order) until `elements` (the result's to
// start with, then each argument's added) passes `max_elements`: then the
// list is short, and `elements` says by how much it passed.
std::vector<Literal> ArgumentsWithin(const HloComputation& entry,
                                     int64_t max_elements, int64_t& elements,
                                     uint64_t state = 1);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_CORPUS_ARGUMENTS_H_
