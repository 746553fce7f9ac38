// The lab library holds what every C++ stage of the Havlak benchmark shares
// and what is not part of the optimisation story: command-line flags and
// options, the standard workload, CFG files, the canonical loop dump, and the
// driver that runs a stage. It mirrors the Go stages' go/internal/lab, message
// for message, so that a C++ stage and a Go stage given the same flags print
// the same bytes. Each stage brings only its own CFG, loop structure graph and
// loop finder.
//
// This header has the error type that the library returns instead of
// throwing (the stages build with -fno-exceptions), and how errors end a
// program.

#ifndef CC_LAB_LAB_H_
#define CC_LAB_LAB_H_

#include <string>
#include <utility>

namespace lab {

// A Status is the outcome of an operation that may fail. A usage error is
// bad input (a flag, its value, or an input file): programs exit with status
// 2 for it, as they do for a flag that does not parse. Any other failure
// exits with status 1.
class Status {
 public:
  static Status Ok() { return Status(Code::kOk, std::string()); }
  static Status Usage(std::string message) {
    return Status(Code::kUsage, std::move(message));
  }
  static Status Failure(std::string message) {
    return Status(Code::kFailure, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  bool is_usage() const { return code_ == Code::kUsage; }
  const std::string& message() const { return message_; }

 private:
  enum class Code { kOk, kUsage, kFailure };

  Status(Code code, std::string message)
      : code_(code), message_(std::move(message)) {}

  Code code_;
  std::string message_;
};

// ExitCode is the status a program ends with for status: 0, 2 for usage
// errors, 1 otherwise.
int ExitCode(const Status& status);

// Report prints "PROGRAM: message" on stderr unless status is ok, PROGRAM
// being the base name of argv0 as in the Go stages, and returns
// ExitCode(status) for main to return, so that the stage's objects are
// destroyed before the program ends.
int Report(const char* argv0, const Status& status);

// LowerFirst returns message with its first letter in lower case. Go spells
// the system's error messages that way ("no such file or directory") where
// strerror capitalises them.
std::string LowerFirst(std::string message);

// ErrnoMessage is Go's text for the error number errnum: strerror's, with
// Go's lower-case first letter.
std::string ErrnoMessage(int errnum);

}  // namespace lab

#endif  // CC_LAB_LAB_H_
