#include "hlo_text/hlo_lexer.h"

#include <charconv>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace mxla {
namespace {

bool IsNameStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

Token Error(Token token, std::string message) {
  token.kind = TokenKind::kError;
  token.text = std::move(message);
  return token;
}

TokenKind ClosingKind(TokenKind open) {
  switch (open) {
    case TokenKind::kLParen:
      return TokenKind::kRParen;
    case TokenKind::kLBrace:
      return TokenKind::kRBrace;
    case TokenKind::kLSquare:
      return TokenKind::kRSquare;
    default:
      return TokenKind::kEof;
  }
}

bool IsClosing(TokenKind kind) {
  return kind == TokenKind::kRParen || kind == TokenKind::kRBrace ||
         kind == TokenKind::kRSquare;
}

}  // namespace

void HloLexer::Advance(size_t n) {
  for (size_t i = 0; i < n && !AtEnd(); ++i, ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
}

bool HloLexer::SkipTrivia(Token* error) {
  while (!AtEnd()) {
    char c = Char();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      Advance();
    } else if (LookingAt("/*")) {
      error->line = line_;
      error->column = column_;
      size_t end = text_.find("*/", pos_ + 2);
      if (end == absl::string_view::npos) {
        *error = Error(*error, "unterminated comment '/*'");
        return false;
      }
      Advance(end + 2 - pos_);
    } else if (LookingAt("//")) {
      while (!AtEnd() && Char() != '\n') Advance();
    } else {
      break;
    }
  }
  return true;
}

Token HloLexer::Single(Token token, TokenKind kind) {
  token.kind = kind;
  token.text = std::string(1, Char());
  Advance();
  return token;
}

Token HloLexer::LexToken() {
  Token token;
  token.line = line_;
  token.column = column_;
  token.offset = pos_;
  char c = Char();
  switch (c) {
    case '=':
      return Single(token, TokenKind::kEqual);
    case ',':
      return Single(token, TokenKind::kComma);
    case ':':
      return Single(token, TokenKind::kColon);
    case '(':
      return Single(token, TokenKind::kLParen);
    case ')':
      return Single(token, TokenKind::kRParen);
    case '{':
      return Single(token, TokenKind::kLBrace);
    case '}':
      return Single(token, TokenKind::kRBrace);
    case '[':
      return Single(token, TokenKind::kLSquare);
    case ']':
      return Single(token, TokenKind::kRSquare);
    case '-':
      return LexMinus(token);
    case '<':
      if (Char(1) == '=') {
        token.kind = TokenKind::kLessEqual;
        token.text = "<=";
        Advance(2);
        return token;
      }
      return Single(token, TokenKind::kLess);
    case '>':
      return Single(token, TokenKind::kGreater);
    case '"':
      return LexString(token);
    case '.':
      if (Char(1) == '.' && Char(2) == '.') {
        token.kind = TokenKind::kEllipsis;
        token.text = "...";
        Advance(3);
        return token;
      }
      break;
    case '%':
      Advance();
      if (AtEnd() || !IsNameStart(Char())) {
        return Error(token, "expected a name after '%'");
      }
      return LexName(token);
    default:
      break;
  }
  if (absl::ascii_isdigit(c)) return LexNumber(token);
  if (IsNameStart(c)) return LexName(token);
  return Error(token,
               absl::StrCat("unexpected character '",
                            absl::CHexEscape(absl::string_view(&c, 1)), "'"));
}

Token HloLexer::LexMinus(Token token) {
  if (Char(1) == '>') {
    token.kind = TokenKind::kArrow;
    token.text = "->";
    Advance(2);
    return token;
  }
  if (absl::ascii_isdigit(Char(1))) return LexNumber(token);
  for (absl::string_view word : {"-inf", "-nan"}) {
    if (LookingAt(word) && !IsNameChar(Char(word.size()))) {
      token.kind = TokenKind::kFloat;
      token.text = std::string(word);
      Advance(word.size());
      return token;
    }
  }
  return Error(token, "unexpected character '-'");
}

// Whether `-?N_-?N(_N)?(x-?N_-?N(_N)?)*` starts at `start` and ends where no
// name character follows; `*end` is then its end.
bool HloLexer::MatchPadding(size_t start, size_t* end) const {
  size_t at = start;
  auto integer = [&](bool sign) {
    if (sign && at < text_.size() && text_[at] == '-') ++at;
    const size_t digits = at;
    while (at < text_.size() && absl::ascii_isdigit(text_[at])) ++at;
    return at > digits;
  };
  while (true) {
    if (!integer(true) || at >= text_.size() || text_[at] != '_') return false;
    ++at;
    if (!integer(true)) return false;
    if (at < text_.size() && text_[at] == '_') {
      ++at;
      if (!integer(false)) return false;
    }
    if (at < text_.size() && text_[at] == 'x') {
      ++at;
      continue;
    }
    break;
  }
  if (at < text_.size() && IsNameChar(text_[at])) return false;
  *end = at;
  return true;
}

bool HloLexer::MatchDimsX(size_t start, size_t* end) const {
  size_t at = start;
  int numbers = 0;
  while (true) {
    const size_t digits = at;
    while (at < text_.size() && absl::ascii_isdigit(text_[at])) ++at;
    if (at == digits) return false;
    ++numbers;
    if (at + 1 < text_.size() && text_[at] == 'x' &&
        absl::ascii_isdigit(text_[at + 1])) {
      ++at;
      continue;
    }
    break;
  }
  if (numbers < 2 || (at < text_.size() && IsNameChar(text_[at]))) {
    return false;
  }
  *end = at;
  return true;
}

namespace {

// Whether every character of `text` may appear in convolution dim_labels
// (`0fb_0io`: spatial digits, b, f, i, o and '_').
bool IsDimLabels(absl::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isdigit(c) && c != 'b' && c != 'f' && c != 'i' &&
        c != 'o' && c != '_') {
      return false;
    }
  }
  return true;
}

}  // namespace

// -?[0-9]+ (.[0-9]*)? ([eE][+-]?[0-9]+)?; a float if it has '.' or exponent.
Token HloLexer::LexNumber(Token token) {
  size_t start = pos_;
  bool is_float = false;
  if (Char() == '-') Advance();
  while (absl::ascii_isdigit(Char())) Advance();
  if (Char() == '.') {
    is_float = true;
    Advance();
    while (absl::ascii_isdigit(Char())) Advance();
  }
  if (Char() == 'e' || Char() == 'E') {
    size_t digits = (Char(1) == '+' || Char(1) == '-') ? 2 : 1;
    if (absl::ascii_isdigit(Char(digits))) {
      is_float = true;
      Advance(digits);
      while (absl::ascii_isdigit(Char())) Advance();
    }
  }
  // pad's configuration glues numbers with '_' and 'x': `-1_2x0_0_1`.
  if (!is_float && Char() == '_') {
    size_t end = pos_;
    if (MatchPadding(start, &end)) {
      Advance(end - pos_);
      token.kind = TokenKind::kPadding;
      token.text = std::string(text_.substr(start, pos_ - start));
      return token;
    }
  }
  // A window's `3x3`.
  if (!is_float && Char() == 'x' && text_[start] != '-') {
    size_t end = pos_;
    if (MatchDimsX(start, &end)) {
      Advance(end - pos_);
      token.kind = TokenKind::kDimsX;
      token.text = std::string(text_.substr(start, pos_ - start));
      return token;
    }
  }
  // A number glued to name characters ("2x", "1e", "1.2.3") is malformed,
  // except convolution dim_labels that start with a spatial dimension
  // (`0fb_0io->0fb`), a name; "->" may follow directly.
  if (!AtEnd() && IsNameChar(Char()) && !LookingAt("->")) {
    while (!AtEnd() && IsNameChar(Char()) && !LookingAt("->")) Advance();
    const absl::string_view glued = text_.substr(start, pos_ - start);
    if (!is_float && IsDimLabels(glued)) {
      token.kind = TokenKind::kName;
      token.text = std::string(glued);
      return token;
    }
    return Error(token, absl::StrCat("malformed number '",
                                     text_.substr(start, pos_ - start), "'"));
  }
  token.kind = is_float ? TokenKind::kFloat : TokenKind::kInt;
  token.text = std::string(text_.substr(start, pos_ - start));
  return token;
}

Token HloLexer::LexName(Token token) {
  size_t start = pos_;
  // "->" ends a name: convolution's `b01f_01io->b01f`.
  while (!AtEnd() && IsNameChar(Char()) && !LookingAt("->")) Advance();
  token.kind = TokenKind::kName;
  token.text = std::string(text_.substr(start, pos_ - start));
  return token;
}

Token HloLexer::LexString(Token token) {
  Advance();  // The opening quote.
  std::string value;
  while (!AtEnd() && Char() != '"') {
    char c = Char();
    if (c == '\\' && !AtEnd(1)) {
      Advance();
      c = Char();
      if (c == 'n') c = '\n';
      if (c == 't') c = '\t';
    }
    value.push_back(c);
    Advance();
  }
  if (AtEnd()) return Error(token, "unterminated string");
  Advance();  // The closing quote.
  token.kind = TokenKind::kString;
  token.text = std::move(value);
  return token;
}

void HloLexer::Rewind(size_t offset, int line, int column) {
  pos_ = offset;
  line_ = line;
  column_ = column;
  done_ = false;
}

bool HloLexer::SkipBracedText() {
  int64_t depth = 1;
  while (!AtEnd()) {
    const char c = Char();
    if (c == '"') {
      Advance();
      while (!AtEnd() && Char() != '"') Advance(Char() == '\\' ? 2 : 1);
      if (AtEnd()) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      Advance();
      return true;
    }
    Advance();
  }
  return false;
}

Token HloLexer::NextToken() {
  Token token;
  if (!done_ && !SkipTrivia(&token)) {
    done_ = true;
    return token;
  }
  if (done_ || AtEnd()) {
    done_ = true;
    token.line = line_;
    token.column = column_;
    token.offset = pos_;
    return token;  // kEof
  }
  token = LexToken();
  if (token.kind == TokenKind::kError) done_ = true;
  return token;
}

std::string TokenKindDescription(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kError:
      return "an error";
    case TokenKind::kName:
      return "a name";
    case TokenKind::kInt:
      return "an integer";
    case TokenKind::kFloat:
      return "a number";
    case TokenKind::kString:
      return "a string";
    case TokenKind::kEqual:
      return "'='";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kLSquare:
      return "'['";
    case TokenKind::kRSquare:
      return "']'";
    case TokenKind::kArrow:
      return "'->'";
    case TokenKind::kLessEqual:
      return "'<='";
    case TokenKind::kEllipsis:
      return "'...'";
    case TokenKind::kPadding:
      return "a padding configuration";
    case TokenKind::kDimsX:
      return "window dimensions like 3x3";
    case TokenKind::kLess:
      return "'<'";
    case TokenKind::kGreater:
      return "'>'";
  }
  return "a token";
}

std::string DescribeToken(const Token& token) {
  constexpr size_t kMaxShown = 40;
  absl::string_view text = token.text;
  std::string shown(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) shown += "...";
  switch (token.kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kError:
      return token.text;
    case TokenKind::kString:
      return absl::StrCat("\"", absl::CEscape(shown), "\"");
    default:
      return absl::StrCat("'", shown, "'");
  }
}

const Token& TokenCursor::Peek(size_t ahead) const {
  while (lookahead_.size() <= ahead) {
    if (!lookahead_.empty() && (lookahead_.back().kind == TokenKind::kEof ||
                                lookahead_.back().kind == TokenKind::kError)) {
      return lookahead_.back();  // Nothing follows the end or an error.
    }
    lookahead_.push_back(lexer_.NextToken());
  }
  return lookahead_[ahead];
}

bool TokenCursor::IsName(absl::string_view text, size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kName && token.text == text;
}

Token TokenCursor::Next() {
  Peek();
  Token& front = lookahead_.front();
  // Never move past the end or past a lexer error: both stay current, so
  // the next expectation reports them.
  if (front.kind == TokenKind::kEof || front.kind == TokenKind::kError) {
    return front;
  }
  Token token = std::move(front);
  lookahead_.pop_front();
  return token;
}

bool TokenCursor::TryConsume(TokenKind kind) {
  if (!Is(kind)) return false;
  Next();
  return true;
}

absl::Status TokenCursor::ErrorAt(const Token& token,
                                  absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(token.line, ":", token.column, ": ", message));
}

absl::Status TokenCursor::Expected(absl::string_view what) const {
  const Token& token = Peek();
  if (token.kind == TokenKind::kError) return ErrorAt(token, token.text);
  return ErrorAt(token, absl::StrCat("expected ", what, " but found ",
                                     DescribeToken(token)));
}

absl::Status TokenCursor::Expect(TokenKind kind) {
  if (TryConsume(kind)) return absl::OkStatus();
  return Expected(TokenKindDescription(kind));
}

absl::StatusOr<std::string> TokenCursor::ExpectName(absl::string_view what) {
  if (!Is(TokenKind::kName)) return Expected(what);
  return Next().text;
}

absl::StatusOr<int64_t> TokenCursor::ExpectNonNegativeInt(
    absl::string_view what) {
  if (!Is(TokenKind::kInt)) return Expected(what);
  const Token& token = Peek();
  int64_t value = -1;
  const char* end = token.text.data() + token.text.size();
  auto [ptr, ec] = std::from_chars(token.text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) {
    return ErrorAt(token, absl::StrCat(what,
                                       " must be a non-negative int64 "
                                       "but is ",
                                       DescribeToken(token)));
  }
  Next();
  return value;
}

absl::Status TokenCursor::SkipValue() {
  TokenKind kind = Peek().kind;
  if (kind == TokenKind::kName || kind == TokenKind::kInt ||
      kind == TokenKind::kFloat || kind == TokenKind::kString) {
    Next();
    return absl::OkStatus();
  }
  if (ClosingKind(kind) == TokenKind::kEof) return Expected("a value");
  std::vector<TokenKind> closers;
  do {
    const Token& token = Peek();
    if (ClosingKind(token.kind) != TokenKind::kEof) {
      if (closers.size() >= static_cast<size_t>(kMaxNesting)) {
        return ErrorAt(token, absl::StrCat("nesting deeper than ", kMaxNesting,
                                           " levels"));
      }
      closers.push_back(ClosingKind(token.kind));
    } else if (IsClosing(token.kind)) {
      if (token.kind != closers.back()) {
        return Expected(TokenKindDescription(closers.back()));
      }
      closers.pop_back();
    } else if (token.kind == TokenKind::kEof ||
               token.kind == TokenKind::kError) {
      return Expected(TokenKindDescription(closers.back()));
    }
    Next();
  } while (!closers.empty());
  return absl::OkStatus();
}

absl::Status TokenCursor::SkipOpaqueValue(std::string* text) {
  if (!Is(TokenKind::kLBrace)) return SkipValue();
  const Token open = Peek();
  // Tokens lexed past the brace may be errors ('#' is no token): lex
  // again from just after it, as raw text.
  lookahead_.clear();
  lexer_.Rewind(open.offset + 1, open.line, open.column + 1);
  if (!lexer_.SkipBracedText()) {
    return ErrorAt(open, "unclosed '{': the value runs to the end of the "
                         "input");
  }
  if (text != nullptr) *text = std::string(lexer_.TextFrom(open.offset));
  return absl::OkStatus();
}

}  // namespace mxla
