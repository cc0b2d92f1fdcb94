#include "tools/doc_figure.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace mxla::tools {
namespace {

size_t Width(const Block& block) {
  size_t width = 0;
  for (const std::string& line : block) width = std::max(width, line.size());
  return width;
}

std::string Pad(const std::string& text, size_t width, Align align) {
  std::string padding(width - std::min(width, text.size()), ' ');
  return align == Align::kLeft ? text + padding : padding + text;
}

}  // namespace

absl::StatusOr<Block> DrawValue(const Literal& value, const DrawStyle& style) {
  const Shape& shape = value.shape();
  if (shape.element_type() != F32 || shape.rank() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a figure draws f32 values of rank 0 to 2, not ", shape.ToString()));
  }
  if (shape.rank() == 0) return Block{absl::StrCat(value.data<float>()[0])};

  // Rows of cells: rank 1 is one row (or one cell per row when standing).
  int64_t rows = shape.rank() == 2 ? shape.dimensions(0) : 1;
  int64_t columns = shape.dimensions(shape.rank() - 1);
  if (shape.rank() == 1 && style.column) std::swap(rows, columns);
  std::vector<std::vector<std::string>> cells(rows);
  std::vector<size_t> widths(columns, 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      cells[r].push_back(absl::StrCat(value.data<float>()[r * columns + c]));
      widths[c] = std::max(widths[c], cells[r].back().size());
    }
  }
  const char* open = style.brackets ? "[" : "|";
  const char* close = style.brackets ? "]" : "|";
  Block block;
  for (const std::vector<std::string>& row : cells) {
    std::vector<std::string> padded;
    for (int64_t c = 0; c < columns; ++c) {
      padded.push_back(Pad(row[c], widths[c], style.align));
    }
    block.push_back(absl::StrCat(open, absl::StrJoin(padded, " "), close));
  }
  return block;
}

Block OperatorAt(absl::string_view text, int line) {
  Block block(line, std::string(text.size(), ' '));
  block.emplace_back(text);
  return block;
}

Block OperatorOnLines(absl::string_view text, int lines) {
  return Block(lines, std::string(text));
}

std::string DrawFigure(const std::vector<Block>& blocks) {
  size_t height = 0;
  for (const Block& block : blocks) height = std::max(height, block.size());
  std::vector<std::string> lines(height);
  for (const Block& block : blocks) {
    size_t width = Width(block);
    for (size_t i = 0; i < height; ++i) {
      lines[i] += Pad(i < block.size() ? block[i] : "", width, Align::kLeft);
    }
  }
  for (std::string& line : lines) {
    line.erase(line.find_last_not_of(' ') + 1);
  }
  return absl::StrJoin(lines, "\n");
}

std::string Dedent(absl::string_view text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  auto blank = [](const std::string& line) {
    return line.find_first_not_of(' ') == std::string::npos;
  };
  while (!lines.empty() && blank(lines.front())) lines.erase(lines.begin());
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  size_t indent = std::string::npos;
  for (const std::string& line : lines) {
    if (!blank(line)) indent = std::min(indent, line.find_first_not_of(' '));
  }
  for (std::string& line : lines) {
    line = blank(line) ? "" : line.substr(indent);
    line.erase(line.find_last_not_of(' ') + 1);
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace mxla::tools
