#include "cc/lab/cfg_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cc/lab/options.h"
#include "cc/lab/quote.h"

namespace lab {
namespace {

constexpr std::int64_t kMaxBlockId = 2147483647;  // 2^31-1
// Go's reader gives its bufio.Scanner a buffer of kMaxLineBytes + 1 (the
// longest line and its newline) and gives up on a line that fills it.
constexpr std::size_t kScannerBufferBytes = kMaxLineBytes + 1;
constexpr std::size_t kReadBytes = 64 * 1024;

// IsAsciiSpace is C's isspace in the "C" locale, independent of the locale
// the program runs in.
bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

// ParseBlockId accepts decimal digits only (no sign), up to 2^31-1.
bool ParseBlockId(std::string_view field, int* id) {
  std::int64_t value = 0;
  for (const char c : field) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
    if (value > kMaxBlockId) return false;
  }
  *id = static_cast<int>(value);
  return !field.empty();
}

// A Reader turns the lines of one file into a CfgFile.
class Reader {
 public:
  Reader(const std::string& path, CfgFile* cfg) : path_(path), cfg_(cfg) {
    cfg_->names.assign(1, 0);
    cfg_->edges.clear();
    index_.emplace(0, 0);
  }

  // ParseLine parses line number line_number, without its newline.
  Status ParseLine(std::string_view text, std::int64_t line_number) {
    const std::string_view::size_type hash = text.find('#');
    if (hash != std::string_view::npos) text = text.substr(0, hash);
    std::string_view fields[2];
    int count = 0;
    std::size_t i = 0;
    while (true) {
      while (i < text.size() && IsAsciiSpace(text[i])) ++i;
      if (i == text.size()) break;
      const std::size_t start = i;
      while (i < text.size() && !IsAsciiSpace(text[i])) ++i;
      if (count == 2) {
        count = 3;  // too many: no need to look further
        break;
      }
      fields[count++] = text.substr(start, i - start);
    }
    if (count == 0) return Status::Ok();
    if (count != 2) {
      return Error(line_number, "want an edge \"FROM TO\", got " +
                                    Quote(TrimSpace(text)));
    }
    std::int32_t edge[2];
    for (int f = 0; f < 2; ++f) {
      int id;
      if (!ParseBlockId(fields[f], &id)) {
        return Error(line_number, "block " + Quote(fields[f]) +
                                      " is not a number between 0 and " +
                                      std::to_string(kMaxBlockId));
      }
      const auto [it, added] =
          index_.emplace(id, static_cast<std::int32_t>(cfg_->names.size()));
      if (added) {
        if (cfg_->names.size() == static_cast<std::size_t>(kMaxBlocks)) {
          return Error(line_number,
                       "more than " + std::to_string(kMaxBlocks) + " blocks");
        }
        cfg_->names.push_back(id);
      }
      edge[f] = it->second;
    }
    if (cfg_->edges.size() == static_cast<std::size_t>(kMaxEdges)) {
      return Error(line_number,
                   "more than " + std::to_string(kMaxEdges) + " edges");
    }
    cfg_->edges.push_back(Edge{edge[0], edge[1]});
    return Status::Ok();
  }

  Status Error(std::int64_t line_number, const std::string& message) const {
    return Status::Usage(path_ + ":" + std::to_string(line_number) + ": " +
                         message);
  }

 private:
  const std::string& path_;
  CfgFile* cfg_;
  std::unordered_map<int, std::int32_t> index_;  // file id -> dense index
};

}  // namespace

void CfgFile::Replay(Graph& graph) const {
  graph.CreateNode(0);
  for (const Edge& edge : edges) graph.AddEdge(edge.from, edge.to);
}

Status ReadCfgFile(const std::string& path, CfgFile* cfg) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    return Status::Usage("-cfg: open " + path + ": " + ErrnoMessage(errno));
  }
  struct stat info;
  if (fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    close(fd);
    return Status::Usage("-cfg: " + path + " is a directory");
  }
  Reader reader(path, cfg);
  Status status = Status::Ok();
  std::int64_t line_number = 0;
  // The start of a line that a read cut short, waiting for its end.
  std::string pending;
  std::vector<char> buffer(kReadBytes);
  int read_errno = 0;
  while (status.ok()) {
    ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) read_errno = errno;
      break;
    }
    std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    while (status.ok()) {
      const std::string_view::size_type newline = chunk.find('\n');
      const std::string_view head = chunk.substr(0, newline);
      if (pending.size() + head.size() >= kScannerBufferBytes) {
        // Go gives up on a line that fills its largest buffer, even the
        // last one.
        status = reader.Error(line_number + 1,
                              "a line longer than " +
                                  std::to_string(kMaxLineBytes) + " bytes");
        break;
      }
      if (newline == std::string_view::npos) {
        pending.append(chunk);
        break;
      }
      std::string_view line = head;
      if (!pending.empty()) {
        pending.append(head);
        line = pending;
      }
      status = reader.ParseLine(line, ++line_number);
      pending.clear();
      chunk.remove_prefix(newline + 1);
    }
  }
  close(fd);
  if (!status.ok()) return status;
  // The last line need not end in a newline; Go reads it even when a read
  // error ends the file.
  if (!pending.empty()) {
    status = reader.ParseLine(pending, ++line_number);
    if (!status.ok()) return status;
  }
  if (read_errno != 0) {
    return reader.Error(line_number + 1,
                        "read " + path + ": " + ErrnoMessage(read_errno));
  }
  return Status::Ok();
}

}  // namespace lab
