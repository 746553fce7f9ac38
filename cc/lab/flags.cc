#include "cc/lab/flags.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/lab/quote.h"

namespace lab {
namespace {

constexpr char kParseError[] = "parse error";
constexpr char kRangeError[] = "value out of range";

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

// UnderscoreOk reports whether the underscores of the unsigned number s sit
// between digits, or between a base prefix and a digit, as Go requires.
bool UnderscoreOk(std::string_view s) {
  char saw = '^';  // '^' start, '0' digit or prefix, '_' underscore, '!' other
  std::size_t i = 0;
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' &&
      (Lower(s[1]) == 'b' || Lower(s[1]) == 'o' || Lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = Lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (hex && Lower(c) >= 'a' && Lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// ParseUint is Go's strconv.ParseUint(s, 0, 64): it returns 0 for a good
// number, 1 for a syntax error and 2 for one out of range. Like Go, it stops
// at the first digit that overflows, before looking at the rest.
int ParseUint(std::string_view s, std::uint64_t* value) {
  if (s.empty()) return 1;
  const std::string_view whole = s;
  unsigned base = 10;
  if (s[0] == '0') {
    if (s.size() >= 3 && Lower(s[1]) == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t cutoff = kMax / base + 1;  // n*base overflows from here
  bool underscores = false;
  std::uint64_t n = 0;
  for (const char c : s) {
    unsigned digit;
    if (c == '_') {
      underscores = true;
      continue;
    } else if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (Lower(c) >= 'a' && Lower(c) <= 'z') {
      digit = Lower(c) - 'a' + 10;
    } else {
      return 1;
    }
    if (digit >= base) return 1;
    if (n >= cutoff) return 2;
    n *= base;
    const std::uint64_t sum = n + digit;
    if (sum < n) return 2;
    n = sum;
  }
  if (underscores && !UnderscoreOk(whole)) return 1;
  *value = n;
  return 0;
}

}  // namespace

bool ParseInt(std::string_view s, std::int64_t* value, std::string* error) {
  if (s.empty()) {
    *error = kParseError;
    return false;
  }
  bool negative = false;
  if (s[0] == '+') {
    s.remove_prefix(1);
  } else if (s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  const int result = ParseUint(s, &magnitude);
  if (result == 1) {
    *error = kParseError;
    return false;
  }
  constexpr std::uint64_t kCutoff = std::uint64_t{1} << 63;
  if (result == 2 || (!negative && magnitude >= kCutoff) ||
      (negative && magnitude > kCutoff)) {
    *error = kRangeError;
    return false;
  }
  // Negate in unsigned arithmetic, where -2^63 does not overflow.
  *value = static_cast<std::int64_t>(negative ? 0 - magnitude : magnitude);
  return true;
}

bool ParseBool(std::string_view s, bool* value) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" ||
      s == "True") {
    *value = true;
    return true;
  }
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" ||
      s == "False") {
    *value = false;
    return true;
  }
  return false;
}

void FlagSet::Define(std::string name, Type type, void* value,
                     std::string default_value, std::string usage) {
  Flag& flag = flags_[std::move(name)];
  flag.type = type;
  flag.value = value;
  flag.default_value = std::move(default_value);
  flag.usage = std::move(usage);
}

void FlagSet::Int(std::int64_t* value, std::string name,
                  std::int64_t default_value, std::string usage) {
  *value = default_value;
  Define(std::move(name), Type::kInt, value, std::to_string(default_value),
         std::move(usage));
}

void FlagSet::Bool(bool* value, std::string name, bool default_value,
                   std::string usage) {
  *value = default_value;
  Define(std::move(name), Type::kBool, value,
         default_value ? "true" : "false", std::move(usage));
}

void FlagSet::String(std::string* value, std::string name,
                     std::string default_value, std::string usage) {
  *value = default_value;
  Define(std::move(name), Type::kString, value, std::move(default_value),
         std::move(usage));
}

FlagSet::ParseResult FlagSet::Fail(std::string message) {
  error_ = std::move(message);
  return ParseResult::kError;
}

bool FlagSet::ParseOne(const std::vector<std::string>& args,
                       std::size_t* next, ParseResult* result) {
  *result = ParseResult::kOk;
  if (*next == args.size()) return false;
  const std::string& arg = args[*next];
  if (arg.size() < 2 || arg[0] != '-') return false;
  std::size_t minuses = 1;
  if (arg[1] == '-') {
    ++minuses;
    if (arg.size() == 2) {  // "--" ends the flags
      ++*next;
      return false;
    }
  }
  std::string_view name = std::string_view(arg).substr(minuses);
  if (name.empty() || name[0] == '-' || name[0] == '=') {
    *result = Fail("bad flag syntax: " + arg);
    return false;
  }
  ++*next;
  bool has_value = false;
  std::string_view value;
  // The name is everything up to the first '=' after its first character.
  const std::string_view::size_type equals = name.find('=', 1);
  if (equals != std::string_view::npos) {
    has_value = true;
    value = name.substr(equals + 1);
    name = name.substr(0, equals);
  }

  const auto it = flags_.find(name);
  if (it == flags_.end()) {
    if (name == "help" || name == "h") {
      *result = ParseResult::kHelp;
    } else {
      *result = Fail("flag provided but not defined: -" + std::string(name));
    }
    return false;
  }
  Flag& flag = it->second;
  const std::string name_string(name);
  switch (flag.type) {
    case Type::kBool:
      // A bool flag never takes the next argument as its value.
      if (!has_value) value = "true";
      if (!ParseBool(value, static_cast<bool*>(flag.value))) {
        *result = Fail("invalid boolean value " + Quote(value) + " for -" +
                       name_string + ": " + kParseError);
        return false;
      }
      break;
    case Type::kInt:
    case Type::kString:
      if (!has_value) {
        if (*next == args.size()) {
          *result = Fail("flag needs an argument: -" + name_string);
          return false;
        }
        value = args[(*next)++];
      }
      if (flag.type == Type::kString) {
        *static_cast<std::string*>(flag.value) = std::string(value);
        break;
      }
      std::string error;
      if (!ParseInt(value, static_cast<std::int64_t*>(flag.value), &error)) {
        *result = Fail("invalid value " + Quote(value) + " for flag -" +
                       name_string + ": " + error);
        return false;
      }
      break;
  }
  flag.set = true;
  return true;
}

FlagSet::ParseResult FlagSet::Parse(const std::vector<std::string>& args) {
  std::size_t next = 0;
  ParseResult result = ParseResult::kOk;
  while (ParseOne(args, &next, &result)) {
  }
  args_.assign(args.begin() + next, args.end());
  return result;
}

std::vector<std::string> FlagSet::Visited() const {
  std::vector<std::string> names;
  for (const auto& [name, flag] : flags_) {
    if (flag.set) names.push_back(name);
  }
  return names;
}

std::string FlagSet::Usage() const {
  std::string out = "Usage of " + name_ + ":\n";
  for (const auto& [name, flag] : flags_) {
    std::string line = "  -" + name;
    // A back-quoted word in the usage names the value; otherwise its type
    // does, and bool flags take none.
    std::string usage = flag.usage;
    std::string value_name;
    const std::string::size_type open = usage.find('`');
    const std::string::size_type close =
        open == std::string::npos ? open : usage.find('`', open + 1);
    if (close != std::string::npos) {
      value_name = usage.substr(open + 1, close - open - 1);
      usage = usage.substr(0, open) + value_name + usage.substr(close + 1);
    } else if (flag.type == Type::kInt) {
      value_name = "int";
    } else if (flag.type == Type::kString) {
      value_name = "string";
    }
    if (!value_name.empty()) line += " " + value_name;
    // One-letter flags without a value name keep their usage on the line.
    line += line.size() <= 4 ? "\t" : "\n    \t";
    for (const char c : usage) {
      if (c == '\n') {
        line += "\n    \t";
      } else {
        line.push_back(c);
      }
    }
    // Go shows defaults other than the zero value of the flag's type.
    const char* zero = flag.type == Type::kInt    ? "0"
                       : flag.type == Type::kBool ? "false"
                                                  : "";
    if (flag.default_value != zero) {
      line += " (default " +
              (flag.type == Type::kString ? Quote(flag.default_value)
                                          : flag.default_value) +
              ")";
    }
    out += line + "\n";
  }
  return out;
}

bool ParseCommandLine(FlagSet& flags, int argc, char** argv, int* exit_code) {
  const std::vector<std::string> args(argv + std::min(argc, 1),
                                      argv + std::max(argc, 1));
  switch (flags.Parse(args)) {
    case FlagSet::ParseResult::kOk:
      return true;
    case FlagSet::ParseResult::kHelp:
      std::fputs(flags.Usage().c_str(), stderr);
      *exit_code = 0;
      return false;
    case FlagSet::ParseResult::kError:
      std::fprintf(stderr, "%s\n%s", flags.error().c_str(),
                   flags.Usage().c_str());
      *exit_code = 2;
      return false;
  }
  return true;
}

}  // namespace lab
