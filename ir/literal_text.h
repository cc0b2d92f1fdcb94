// The HLO text form of literal values, shared by the printer (constants),
// Literal::ToString and error messages. Parsing lives in the HLO parser.
//
//   scalar:  1, 0.5, -inf, nan, true
//   rank 1:  {1, 2, 3}
//   rank 2+: { {1, 2}, {3, 4} }
//   empty:   {}
// Floats print in the shortest form that reads back to the same value
// (NaN payloads and signs are not kept). Pred scalars print true/false and
// pred array elements 0/1, as XLA does.
#ifndef MXLA_IR_LITERAL_TEXT_H_
#define MXLA_IR_LITERAL_TEXT_H_

#include <string>

#include "ir/literal.h"

namespace mxla {

// The value part of a literal (no shape): `{1, 2}`, or `({1, 2}, 3)` for a
// tuple, as constant() prints it.
std::string LiteralValuesToString(const Literal& literal);

// The values of a large array as NumPy prints them: each dimension longer
// than 2 * `edge` shows its first and last `edge` entries around "...",
// and each innermost row of a rank >= 2 array starts a new line,
// indented by its depth:
//   {
//     {0, 1, 2, ..., 997, 998, 999},
//     ...,
//     {..., 1999999}
//   }
// with pred elements as True and False, as NumPy writes them.
// Scalars, tuples and empty arrays print as LiteralValuesToString does.
std::string SummarizedLiteralValues(const Literal& literal, int64_t edge = 3);

// One element in text form; `in_array` selects 0/1 over true/false for pred.
std::string FormatLiteralElement(const Literal& literal, int64_t linear_index,
                                 bool in_array);

}  // namespace mxla

#endif  // MXLA_IR_LITERAL_TEXT_H_
