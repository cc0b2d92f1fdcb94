#include "tools/ir_excerpt.h"

#include <regex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mxla::tools {
namespace {

struct BasicBlock {
  std::string label;
  std::vector<std::string> instructions;
  int vector_instructions = 0;
  bool loops_to_itself = false;
};

// `  %3 = load <8 x float>, ptr %2, align 4, !alias.scope !0, !noalias !7`
// loses everything from the first `, !` on: metadata says nothing to a user.
std::string WithoutMetadata(const std::string& line) {
  size_t metadata = line.find(", !");
  return metadata == std::string::npos ? line : line.substr(0, metadata);
}

// Phis and address arithmetic are loop plumbing; the loads, the math and
// the stores are what a reader wants to see vectorized.
bool IsPlumbing(const std::string& line) {
  return line.find(" = phi ") != std::string::npos ||
         line.find(" = getelementptr ") != std::string::npos;
}

// Long constant vectors make lines hundreds of characters wide.
std::string Shortened(const std::string& line, size_t width) {
  if (line.size() <= width) return line;
  return line.substr(0, width - 4) + " ...";
}

std::vector<BasicBlock> SplitIntoBlocks(absl::string_view llvm_ir) {
  static const std::regex kLabel(R"(^([-\w.$]+):(.*preds = (.*))?)");
  static const std::regex kVector(R"(<\d+ x )");
  std::vector<BasicBlock> blocks;
  for (absl::string_view piece : absl::StrSplit(llvm_ir, '\n')) {
    std::string line(piece);
    std::smatch match;
    if (std::regex_search(line, match, kLabel)) {
      BasicBlock block;
      block.label = match[1];
      for (absl::string_view pred : absl::StrSplit(match[3].str(), ", ")) {
        if (absl::StripPrefix(pred, "%") == block.label) {
          block.loops_to_itself = true;
        }
      }
      blocks.push_back(std::move(block));
      continue;
    }
    if (blocks.empty() || line.empty() || line[0] != ' ') continue;
    if (line == "}") continue;
    BasicBlock& block = blocks.back();
    if (std::regex_search(line, kVector)) ++block.vector_instructions;
    if (!IsPlumbing(line)) {
      block.instructions.push_back(Shortened(WithoutMetadata(line), 100));
    }
  }
  return blocks;
}

}  // namespace

std::string VectorLoopExcerpt(absl::string_view llvm_ir, int max_lines) {
  std::vector<BasicBlock> blocks = SplitIntoBlocks(llvm_ir);
  const BasicBlock* best = nullptr;
  for (const BasicBlock& block : blocks) {
    if (block.vector_instructions == 0) continue;
    if (best == nullptr ||
        std::pair(block.loops_to_itself, block.vector_instructions) >
            std::pair(best->loops_to_itself, best->vector_instructions)) {
      best = &block;
    }
  }
  if (best == nullptr) return "";
  std::string text = absl::StrCat(best->label, ":\n");
  int shown = 0;
  for (const std::string& instruction : best->instructions) {
    if (shown == max_lines) {
      absl::StrAppend(&text, "  ... (", best->instructions.size() - shown,
                      " more lines)\n");
      break;
    }
    absl::StrAppend(&text, instruction, "\n");
    ++shown;
  }
  return text;
}

}  // namespace mxla::tools
