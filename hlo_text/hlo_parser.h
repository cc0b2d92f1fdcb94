// Parses HLO text (xla-semantics.md §c, docs/design.md "Text format") into an
// HloModule. The printer's output always parses back to a module that
// prints identically.
//
// Accepted beyond the printer's form: `%` names, missing layouts (the
// row-major default), operand shape prefixes, comments, computation
// signatures, module attributes (entry_computation_layout is checked, others
// ignored), metadata (op_name, source_file, source_line kept), and
// sharding / frontend_attributes / backend_config (ignored; the latter two,
// and other module attributes, as opaque text: a `{...}` value may hold any
// characters, `#sdy.mesh<[]>` included).
//
// What the parser guarantees: names are kept exactly, but for the module's,
// which is sanitized as XLA does (ir/hlo_name.h) (instruction names are
// unique in the module; computation names are a separate namespace), every
// operand is defined earlier in its computation, called computations are
// defined earlier, operand counts match the opcode, each opcode has exactly
// its required attributes, shapes are valid (ShapeUtil::ValidateShape) with
// the default layout, constants are arrays or tuples of arrays and match
// their shapes, and parameter numbers are dense. It does NOT infer or check
// result shapes against operands: run the verifier for that.
//
// Every error is InvalidArgument with a message "<line>:<column>: ...".
// No input makes the parser crash, hang or recurse without bound.
#ifndef MXLA_HLO_TEXT_HLO_PARSER_H_
#define MXLA_HLO_TEXT_HLO_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_module.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace mxla {

// A whole module, owned by the caller. Without ENTRY the last computation is
// the entry; without ROOT a computation's last instruction is its root.
// Run VerifyModule before anything that relies on consistent shapes.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text);

// A whole shape: "f32[2,3]{1,0}", "s32[]", "(f32[2], pred[])". It is
// validated, a layout must be the row-major default, and nothing may follow.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

// The value part of a literal of `shape`: "{ {1, 2}, {3, 4} }", "-inf",
// "( {1, 2}, true )" for a tuple. An invalid `shape` is InvalidArgument too;
// counts and nesting must match it, every value must fit its element type,
// and nothing may follow.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const Shape& shape);

}  // namespace mxla

#endif  // MXLA_HLO_TEXT_HLO_PARSER_H_
