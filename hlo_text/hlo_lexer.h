// The HLO text tokenizer and the token cursor the parsers walk.
//
// Tokens: names `[A-Za-z_][A-Za-z0-9_.-]*` (a leading `%` is dropped),
// integers, floats (`1.5`, `2e-3`, `-inf`, `-nan`; bare `inf`/`nan` are
// names), "strings" (escapes decoded), and `= , : ( ) { } [ ] ->`.
// `/* ... */` and `// ...` comments and whitespace are skipped. Lines and
// columns are 1-based; a column counts bytes.
//
// Lexing never fails: the first bad character (or unterminated comment or
// string, or malformed number) becomes a kError token whose text is the
// message, and the stream ends there. Every stream ends with kEof.
#ifndef MXLA_HLO_TEXT_HLO_LEXER_H_
#define MXLA_HLO_TEXT_HLO_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

enum class TokenKind {
  kEof,
  kError,
  kName,
  kInt,
  kFloat,
  kString,
  kEqual,
  kComma,
  kColon,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLSquare,
  kRSquare,
  kArrow,
  kLessEqual,  // `<=`, only inside sharding's iota device lists
  kEllipsis,   // `...`, an elided constant's values: `{...}`
  kPadding,    // `1_2x0_0_1`: pad's padding configuration
  kDimsX,      // `3x3`: a window's sizes, strides or dilations
  kLess,       // `<` and `>`: only inside skipped attribute values (MLIR
  kGreater,    // syntax in frontend_attributes: `dense<1> : tensor<i32>`)
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;  // Name (without %), number, decoded string, message.
  int line = 1;
  int column = 1;
  size_t offset = 0;  // Of the token's first byte in the text.
};

// Produces tokens one at a time, so memory does not grow with the input.
// After kEof or kError every further token is kEof.
class HloLexer {
 public:
  explicit HloLexer(absl::string_view text) : text_(text) {}
  Token NextToken();
  // Lexes on from byte `offset`, which is at `line`:`column`.
  void Rewind(size_t offset, int line, int column);
  // From just after an opening '{', skips raw text up to and including the
  // matching '}': braces nest, "strings" are skipped whole (`\` escapes),
  // and any other byte is skipped. False if the input ends first.
  bool SkipBracedText();
  // The text from byte `begin` to where the lexer is now.
  absl::string_view TextFrom(size_t begin) const {
    return text_.substr(begin, pos_ - begin);
  }

 private:
  bool AtEnd(size_t offset = 0) const { return pos_ + offset >= text_.size(); }
  // The character `offset` on, or '\0' past the end (callers check AtEnd
  // where an input NUL would matter).
  char Char(size_t offset = 0) const {
    return AtEnd(offset) ? '\0' : text_[pos_ + offset];
  }
  bool LookingAt(absl::string_view s) const {
    return text_.substr(pos_, s.size()) == s;
  }
  void Advance(size_t n = 1);
  // Skips whitespace and comments; an unterminated comment is an error.
  bool SkipTrivia(Token* error);
  Token LexToken();
  Token LexMinus(Token token);
  Token LexNumber(Token token);
  bool MatchPadding(size_t start, size_t* end) const;
  // Whether `N(xN)+` starts at `start` and ends where no name character
  // follows; `*end` is then its end.
  bool MatchDimsX(size_t start, size_t* end) const;
  Token LexName(Token token);
  Token LexString(Token token);
  Token Single(Token token, TokenKind kind);

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool done_ = false;
};

// "')'", "a name": how a kind is named in "expected ..." messages.
std::string TokenKindDescription(TokenKind kind);

// A read position in a token stream, with the error helpers every parser
// uses so that all messages start with "<line>:<column>: ". Tokens are
// lexed on demand; a reference from Peek stays valid until that token is
// consumed by Next.
class TokenCursor {
 public:
  explicit TokenCursor(absl::string_view text) : lexer_(text) {}

  // The token `ahead` positions on; past the end it is the kEof token.
  const Token& Peek(size_t ahead = 0) const;
  bool Is(TokenKind kind, size_t ahead = 0) const {
    return Peek(ahead).kind == kind;
  }
  bool IsName(absl::string_view text, size_t ahead = 0) const;
  // Returns the current token and moves on (never past kEof or kError).
  Token Next();
  // Consumes the current token if it is of `kind`.
  bool TryConsume(TokenKind kind);

  // "L:C: message" at `token`.
  static absl::Status ErrorAt(const Token& token, absl::string_view message);
  // "L:C: expected <what> but found <current token>"; a lexer error token
  // reports its own message instead.
  absl::Status Expected(absl::string_view what) const;
  absl::Status Expect(TokenKind kind);
  absl::StatusOr<std::string> ExpectName(absl::string_view what);
  // A non-negative integer token, e.g. a parameter or tuple index.
  absl::StatusOr<int64_t> ExpectNonNegativeInt(absl::string_view what);

  // Skips one attribute value: a token, or a balanced (), {} or [] group
  // nested at most kMaxNesting deep.
  absl::Status SkipValue();
  // Skips a value that is opaque text, as frontend_attributes' are (MLIR
  // attributes from JAX: `{mesh = #sdy.mesh<[]>}`): a `{...}` group is
  // skipped as raw text (SkipBracedText), any other value as SkipValue does.
  // With `text`, a skipped group's raw text (braces included) is kept there.
  absl::Status SkipOpaqueValue(std::string* text = nullptr);

  // How deep braces and parentheses may nest anywhere in HLO text.
  static constexpr int kMaxNesting = 64;

 private:
  // Lexing on demand is logically const: Peek does not move the cursor.
  mutable HloLexer lexer_;
  mutable std::deque<Token> lookahead_;
};

// How a token is shown in messages: 'text' (shortened), or "end of input".
std::string DescribeToken(const Token& token);

}  // namespace mxla

#endif  // MXLA_HLO_TEXT_HLO_LEXER_H_
