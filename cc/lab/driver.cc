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

// A ReportWriter writes the report and keeps the first error; after one, it
// writes nothing more.
class ReportWriter {
 public:
  explicit ReportWriter(std::FILE* out) : out_(out) {}
  void Print(const std::string& text) {
    if (status_.ok()) status_ = Write(out_, text);
  }
  const Status& status() const { return status_; }

 private:
  std::FILE* out_;
  Status status_ = Status::Ok();
};

}  // namespace

Status Run(std::FILE* out, const Options& options, LoopFinder& finder) {
  // A report that cannot be written ends the run: it would be lost.
  ReportWriter w(out);
  // A pass that gives up on a CFG file is the file's fault.
  auto find_loops = [&](int* loops) {
    Status status = finder.FindLoops(loops);
    if (!status.ok() && !options.cfg_file.empty()) {
      return Status::Usage(options.cfg_file + ": " + status.message());
    }
    return status;
  };

  CfgFile cfg;
  const std::vector<int>* names = nullptr;
  int loops = 0;
  if (!options.cfg_file.empty()) {
    Status status = ReadCfgFile(options.cfg_file, &cfg);
    if (!status.ok()) return status;
    w.Print("Read " + options.cfg_file + ": " +
            std::to_string(cfg.names.size()) + " blocks, " +
            std::to_string(cfg.edges.size()) + " edges\n");
    cfg.Replay(finder);
    names = &cfg.names;
  } else {
    w.Print("Constructing simple CFG...\n");
    BuildSimpleCfg(finder);
    w.Print(std::to_string(options.dummy) + " dummy loops\n");
    for (std::int64_t i = 0; i < options.dummy && w.status().ok(); ++i) {
      Status status = find_loops(&loops);
      if (!status.ok()) return status;
    }
    w.Print("Constructing CFG...\n");
    BuildWorkload(finder, static_cast<int>(options.trees),
                  static_cast<int>(options.loops),
                  static_cast<int>(options.base_loops));
  }

  w.Print("Performing loop recognition\n");
  w.Print("1 iteration\n");
  if (!w.status().ok()) return w.status();
  Status status = find_loops(&loops);
  if (!status.ok()) return status;
  w.Print(CountLine(loops));
  if (options.dump) w.Print(Dump(finder.Describe(), names));

  if (options.iterations > 0) {
    w.Print("Another " + std::to_string(options.iterations) +
            " iterations...\n");
    for (std::int64_t i = 0; i < options.iterations && w.status().ok(); ++i) {
      status = find_loops(&loops);
      if (!status.ok()) return status;
      w.Print(".");
    }
    w.Print("\n");
    w.Print(CountLine(loops));
  }
  return w.status();
}

}  // namespace lab
