// Internal to the HLO parser: shapes, integer lists and literal values read
// from a TokenCursor. Each function consumes exactly its construct and
// returns a "<line>:<column>: ..." InvalidArgument error otherwise.
#ifndef MXLA_HLO_TEXT_HLO_LITERAL_PARSER_H_
#define MXLA_HLO_TEXT_HLO_LITERAL_PARSER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo_text/hlo_lexer.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace mxla::hlo_parser_internal {

// `f32[2,3]`, `f32[2,3]{1,0}`, `(f32[2]{0}, s32[])`, `()`. The shape is
// validated; a layout, if present, must be the default row-major one.
absl::StatusOr<Shape> ParseShapeAt(TokenCursor& cursor);

// True if the cursor is at something that starts a shape: `f32[` or `(`.
// Whether a buffer shape, XLA's `b(f32[16])`, starts here; and the error
// that refuses it.
bool AtBufferShape(const TokenCursor& cursor);
absl::Status BufferShapeError(const TokenCursor& cursor);
bool AtShape(const TokenCursor& cursor);

// `{1, 0}` or `{}`.
absl::StatusOr<std::vector<int64_t>> ParseInt64ListAt(TokenCursor& cursor);
// `{[start:limit(:stride)?], ...}` (slice bounds) as start, limit, stride
// triples, the stride 1 when left out.
absl::StatusOr<std::vector<int64_t>> ParseSliceRangesAt(TokenCursor& cursor);
// `{{0,1},{2,3}}` or XLA's iota form `[2,2]<=[4]` (`[groups,size]<=[dims]`,
// optionally `T(perm)`: the ids 0..n-1 laid out as dims, transposed by
// perm, read as groups rows), encoded as ir/replica_groups.h does.
absl::StatusOr<std::vector<int64_t>> ParseIdGroupsAt(TokenCursor& cursor);

// The value part of a literal of the valid `shape`: `1`, `{ {1, 2} }`,
// `( {1}, true )`. Element counts and nesting must match the shape, and
// every value must fit its element type.
absl::StatusOr<Literal> ParseLiteralAt(TokenCursor& cursor, const Shape& shape);

}  // namespace mxla::hlo_parser_internal

#endif  // MXLA_HLO_TEXT_HLO_LITERAL_PARSER_H_
