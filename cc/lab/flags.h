// Command-line flags parsed the way Go's flag package parses them, so that
// the C++ stages accept the same command lines as the Go stages and reject
// the others with the same messages and exit statuses.

#ifndef CC_LAB_FLAGS_H_
#define CC_LAB_FLAGS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lab {

// ParseInt parses s as Go's strconv.ParseInt(s, 0, 64) does: an optional
// sign, then decimal, or octal after "0" or "0o", hexadecimal after "0x",
// binary after "0b", with '_' between digits. On failure it returns false
// and sets *error to "parse error" or, for numbers that do not fit in 64
// bits, "value out of range", the words Go's flag package uses.
bool ParseInt(std::string_view s, std::int64_t* value, std::string* error);

// ParseBool parses s as Go's strconv.ParseBool does: 1, t, T, TRUE, true,
// True, 0, f, F, FALSE, false or False.
bool ParseBool(std::string_view s, bool* value);

// A FlagSet is a set of defined flags and the parser for them, after Go's
// flag.FlagSet with the ExitOnError policy left to the caller.
//
// Flags are "-name=value", "-name value" (not for bool flags), or "-name"
// (bool flags only), with one or two leading dashes. Parsing stops at the
// first argument that is not a flag, or after "--".
class FlagSet {
 public:
  // name is what the usage message calls the program.
  explicit FlagSet(std::string name) : name_(std::move(name)) {}

  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  // Define a flag that sets *value, which starts out as the default. A
  // back-quoted word in usage names the flag's value in the usage message.
  // The pointers must outlive the FlagSet.
  void Int(std::int64_t* value, std::string name, std::int64_t default_value,
           std::string usage);
  void Bool(bool* value, std::string name, bool default_value,
            std::string usage);
  void String(std::string* value, std::string name, std::string default_value,
              std::string usage);

  enum class ParseResult {
    kOk,
    // -h or -help: the caller prints Usage() and exits with status 0.
    kHelp,
    // The caller prints error() and Usage(), as Go does, and exits with
    // status 2.
    kError,
  };

  // Parse parses args, which exclude the program name.
  ParseResult Parse(const std::vector<std::string>& args);

  // The message of the last kError, without a trailing newline.
  const std::string& error() const { return error_; }

  // The arguments left after the flags.
  const std::vector<std::string>& args() const { return args_; }

  // The names of the flags the command line set, in lexicographical order,
  // as Go's FlagSet.Visit visits them.
  std::vector<std::string> Visited() const;

  // Usage is the message Go's default usage function prints: "Usage of
  // NAME:" and each flag with its usage and non-zero default.
  std::string Usage() const;

 private:
  enum class Type { kInt, kBool, kString };

  struct Flag {
    Type type;
    std::string usage;
    std::string default_value;  // as Go's Value.String prints it
    void* value;
    bool set = false;
  };

  void Define(std::string name, Type type, void* value,
              std::string default_value, std::string usage);
  // ParseOne parses the flag at args[*next], if there is one, advancing
  // *next. It returns false at the end of the flags or on an error, setting
  // *result.
  bool ParseOne(const std::vector<std::string>& args, std::size_t* next,
                ParseResult* result);
  ParseResult Fail(std::string message);

  std::string name_;
  std::map<std::string, Flag, std::less<>> flags_;  // sorted, as Go prints
  std::vector<std::string> args_;
  std::string error_;
};

// ParseCommandLine parses argv[1:] with flags as Go's flag.Parse does and
// returns true for the program to go on. Otherwise main returns *exit_code:
// 0 after -h or -help, for which it printed the usage to stderr; 2 after a
// bad flag, for which it printed the error and the usage to stderr.
bool ParseCommandLine(FlagSet& flags, int argc, char** argv, int* exit_code);

}  // namespace lab

#endif  // CC_LAB_FLAGS_H_
