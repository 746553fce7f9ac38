#include "cc/lab/quote.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace lab {
namespace {

struct RuneRange {
  char32_t first;
  char32_t last;
};

// Generated from Go's own tables, so both languages agree on every code point
// of the Unicode version the Go stages are built with.
constexpr RuneRange kPrintRanges[] = {
#include "cc/lab/print_ranges.inc"
};

constexpr char32_t kRuneError = 0xFFFD;
constexpr char kLowerHex[] = "0123456789abcdef";

struct DecodedRune {
  char32_t rune;
  std::size_t width;
};

// DecodeRune decodes the first UTF-8 sequence of s as Go's utf8.DecodeRune
// does: an invalid, overlong, surrogate or truncated sequence is kRuneError
// of width 1, so that each of its bytes is shown on its own.
DecodedRune DecodeRune(std::string_view s) {
  const auto byte = [&s](std::size_t i) {
    return static_cast<unsigned char>(s[i]);
  };
  if (s.empty()) return {kRuneError, 0};
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  std::size_t width;
  char32_t rune;
  unsigned char low = 0x80;  // the range of the second byte, which Go
  unsigned char high = 0xBF;  // narrows to rule out overlongs and surrogates
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    width = 2;
    rune = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    width = 3;
    rune = b0 & 0x0F;
    if (b0 == 0xE0) low = 0xA0;
    if (b0 == 0xED) high = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    width = 4;
    rune = b0 & 0x07;
    if (b0 == 0xF0) low = 0x90;
    if (b0 == 0xF4) high = 0x8F;
  } else {
    return {kRuneError, 1};
  }
  if (s.size() < width) return {kRuneError, 1};
  for (std::size_t i = 1; i < width; ++i) {
    const unsigned char b = byte(i);
    if (i == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) {
      return {kRuneError, 1};
    }
    rune = (rune << 6) | (b & 0x3F);
  }
  return {rune, width};
}

// DecodeLastRune decodes the last UTF-8 sequence of s as Go's
// utf8.DecodeLastRune does.
DecodedRune DecodeLastRune(std::string_view s) {
  if (s.empty()) return {kRuneError, 0};
  const std::size_t end = s.size();
  std::size_t start = end - 1;
  if (static_cast<unsigned char>(s[start]) < 0x80) {
    return {static_cast<unsigned char>(s[start]), 1};
  }
  // Back up to the byte that starts the sequence, at most 4 bytes from the
  // end.
  const std::size_t limit = end >= 4 ? end - 4 : 0;
  while (start > limit &&
         (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
    --start;
  }
  const DecodedRune r = DecodeRune(s.substr(start));
  if (start + r.width != end) return {kRuneError, 1};
  return r;
}

// IsSpace is Go's unicode.IsSpace.
bool IsSpace(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
  }
  return r >= 0x2000 && r <= 0x200A;
}

void AppendHex(std::string& out, char32_t r, int digits) {
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
    out.push_back(kLowerHex[(r >> shift) & 0xF]);
  }
}

}  // namespace

bool IsPrint(char32_t r) {
  const RuneRange* end = std::end(kPrintRanges);
  // The first range that ends at or after r holds r, if any does.
  const RuneRange* range = std::lower_bound(
      std::begin(kPrintRanges), end, r,
      [](const RuneRange& range, char32_t r) { return range.last < r; });
  return range != end && range->first <= r;
}

std::string Quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  while (!s.empty()) {
    const DecodedRune d = DecodeRune(s);
    const char32_t r = d.rune;
    if (r == kRuneError && d.width == 1) {
      out += "\\x";
      AppendHex(out, static_cast<unsigned char>(s[0]), 2);
    } else if (r == '"' || r == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(r));
    } else if (IsPrint(r)) {
      out.append(s.substr(0, d.width));
    } else {
      switch (r) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          if (r < ' ' || r == 0x7F) {
            out += "\\x";
            AppendHex(out, r, 2);
          } else if (r < 0x10000) {
            out += "\\u";
            AppendHex(out, r, 4);
          } else {
            out += "\\U";
            AppendHex(out, r, 8);
          }
      }
    }
    s.remove_prefix(d.width);
  }
  out.push_back('"');
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty()) {
    const DecodedRune d = DecodeRune(s);
    if (!IsSpace(d.rune)) break;
    s.remove_prefix(d.width);
  }
  while (!s.empty()) {
    const DecodedRune d = DecodeLastRune(s);
    if (!IsSpace(d.rune)) break;
    s.remove_suffix(d.width);
  }
  return s;
}

}  // namespace lab
