#include "cc/lab/lab.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace lab {

int ExitCode(const Status& status) {
  if (status.ok()) return 0;
  return status.is_usage() ? 2 : 1;
}

int Report(const char* argv0, const Status& status) {
  if (!status.ok()) {
    // The base name, as Go's filepath.Base(os.Args[0]) gives it.
    std::string name = argv0;
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    const std::string::size_type slash = name.rfind('/');
    if (slash != std::string::npos && name.size() > 1) {
      name.erase(0, slash + 1);
    }
    if (name.empty()) name = ".";
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", name.c_str(), status.message().c_str());
  }
  return ExitCode(status);
}

std::string LowerFirst(std::string message) {
  if (!message.empty() && message[0] >= 'A' && message[0] <= 'Z') {
    message[0] = static_cast<char>(message[0] - 'A' + 'a');
  }
  return message;
}

std::string ErrnoMessage(int errnum) {
  return LowerFirst(std::strerror(errnum));
}

}  // namespace lab
