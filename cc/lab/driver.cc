#include "cc/lab/driver.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cc/lab/cfg_file.h"

namespace lab {
namespace {

// Write writes text to out right away, as Go's unbuffered os.Stdout does,
// and returns the error Go would report for it.
Status Write(std::FILE* out, const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() ||
      std::fflush(out) != 0) {
    const int error = errno != 0 ? errno : EIO;
    std::clearerr(out);
    return Status::Failure("write /dev/stdout: " + ErrnoMessage(error));
  }
  return Status::Ok();
}

std::string CountLine(int loops) {
  return "# of loops: " + std::to_string(loops) +
         " (plus 1 artificial root node)\n";
}

}  // namespace

Status Run(std::FILE* out, const Options& options, LoopFinder& finder) {
  // Like the Go driver, only a failed dump counts as an error: a report
  // line that cannot be written is not worth stopping the benchmark for.
  CfgFile cfg;
  const std::vector<int>* names = nullptr;
  if (!options.cfg_file.empty()) {
    Status status = ReadCfgFile(options.cfg_file, &cfg);
    if (!status.ok()) return status;
    Write(out, "Read " + options.cfg_file + ": " +
                   std::to_string(cfg.names.size()) + " blocks, " +
                   std::to_string(cfg.edges.size()) + " edges\n");
    cfg.Replay(finder);
    names = &cfg.names;
  } else {
    Write(out, "Constructing simple CFG...\n");
    BuildSimpleCfg(finder);
    Write(out, std::to_string(options.dummy) + " dummy loops\n");
    for (std::int64_t i = 0; i < options.dummy; ++i) finder.FindLoops();
    Write(out, "Constructing CFG...\n");
    BuildWorkload(finder, static_cast<int>(options.trees),
                  static_cast<int>(options.loops),
                  static_cast<int>(options.base_loops));
  }

  Write(out, "Performing loop recognition\n");
  Write(out, "1 iteration\n");
  Write(out, CountLine(finder.FindLoops()));
  if (options.dump) {
    Status status = Write(out, Dump(finder.Describe(), names));
    if (!status.ok()) return status;
  }

  if (options.iterations > 0) {
    Write(out, "Another " + std::to_string(options.iterations) +
                   " iterations...\n");
    int loops = 0;
    for (std::int64_t i = 0; i < options.iterations; ++i) {
      loops = finder.FindLoops();
      Write(out, ".");
    }
    Write(out, "\n");
    Write(out, CountLine(loops));
  }
  return Status::Ok();
}

}  // namespace lab
