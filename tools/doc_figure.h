// Draws values in the notation of the broadcasting document
// (docs/broadcasting.md), so `mxla demo` can show its results as the
// document's own figures and check them character for character:
//
//   |1 2 3| + 7 = |8  9  10|
//   |4 5 6|       |11 12 13|
//
// A row is `|a b c|`, a matrix is its rows stacked, `[5 6]` is a 1x2 matrix
// written inline, a scalar is bare. Figures are blocks of lines placed side
// by side, top-aligned.
#ifndef MXLA_TOOLS_DOC_FIGURE_H_
#define MXLA_TOOLS_DOC_FIGURE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"

namespace mxla::tools {

// The document pads a column's numbers on the right in most figures and on
// the left in the last one; both are needed to match it.
enum class Align { kLeft, kRight };

struct DrawStyle {
  Align align = Align::kLeft;
  bool brackets = false;  // `[5 6]` instead of `|5 6|`
  bool column = false;    // a rank-1 value drawn standing: `|7|` per line
};

// One piece of a figure: its lines, top to bottom.
using Block = std::vector<std::string>;

// An f32 value of rank 0, 1 or 2; other ranks and types are InvalidArgument.
absl::StatusOr<Block> DrawValue(const Literal& value,
                                const DrawStyle& style = {});

// An operator such as " + " on line `line` of the figure only.
Block OperatorAt(absl::string_view text, int line = 0);
// The same operator on each of the first `lines` lines.
Block OperatorOnLines(absl::string_view text, int lines);

// The blocks side by side, each padded to its widest line, lines joined by
// '\n' with trailing blanks trimmed (as the document's text has none).
std::string DrawFigure(const std::vector<Block>& blocks);

// `text` without its leading and trailing blank lines and without the
// indentation all its lines share: a figure as the Markdown code block
// holds it, minus the block's indentation.
std::string Dedent(absl::string_view text);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_DOC_FIGURE_H_
