#include "cc/lab/labtest/labtest.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cc/lab/cfg_file.h"
#include "cc/lab/dump.h"
#include "cc/lab/options.h"
#include "cc/lab/workload.h"

namespace labtest {
namespace {

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// ReadFile returns the contents of path, failing the test if it cannot.
std::string ReadFile(const std::string& path) {
  std::string contents;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    ADD_FAILURE() << "cannot open " << path;
    return contents;
  }
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    contents.append(buffer, n);
  }
  std::fclose(file);
  return contents;
}

// CfgPaths lists the hand-made CFGs, sorted.
std::vector<std::string> CfgPaths() {
  const std::string dir = Path("testdata/cfgs");
  std::vector<std::string> paths;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    ADD_FAILURE() << "cannot list " << dir;
    return paths;
  }
  while (const dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".cfg") == 0) {
      paths.push_back(dir + "/" + name);
    }
  }
  closedir(d);
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

std::string Path(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/" + rel;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) {
    ADD_FAILURE() << "cannot get the working directory";
    return rel;
  }
  std::string dir = cwd;
  while (!Exists(dir + "/WORKSPACE")) {
    const std::string::size_type slash = dir.rfind('/');
    if (slash == std::string::npos || dir == "/") {
      ADD_FAILURE() << "no WORKSPACE above " << cwd << " to find " << rel
                    << " in";
      return rel;
    }
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return dir + "/" + rel;
}

void HandMade(const NewFinder& new_finder) {
  const std::vector<std::string> paths = CfgPaths();
  ASSERT_FALSE(paths.empty()) << "no hand-made CFGs found";
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const std::string want =
        ReadFile(path.substr(0, path.size() - 4) + ".dump");
    lab::CfgFile cfg;
    const lab::Status status = lab::ReadCfgFile(path, &cfg);
    ASSERT_TRUE(status.ok()) << status.message();
    std::unique_ptr<lab::LoopFinder> finder = new_finder();
    cfg.Replay(*finder);
    PassLoops(*finder);
    EXPECT_EQ(lab::Dump(finder->Describe(), &cfg.names), want)
        << "first pass";
    // A second pass over the same CFG must find the same loops: stages
    // reuse memory between passes.
    PassLoops(*finder);
    EXPECT_EQ(lab::Dump(finder->Describe(), &cfg.names), want)
        << "second pass";
  }
}

int PassLoops(lab::LoopFinder& finder) {
  int loops = -1;
  const lab::Status status = finder.FindLoops(&loops);
  EXPECT_TRUE(status.ok()) << status.message();
  return loops;
}

void TooIrreducible(const NewFinder& new_finder) {
  constexpr int kBlocks = 5000;
  constexpr int kEdges = 20000;
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> block(0, kBlocks - 1);
  std::unique_ptr<lab::LoopFinder> finder = new_finder();
  finder->CreateNode(0);
  for (int i = 0; i < kEdges; ++i) finder->AddEdge(block(rng), block(rng));
  int loops = 0;
  const lab::Status status = finder->FindLoops(&loops);
  EXPECT_FALSE(status.ok()) << "a random CFG of " << kBlocks << " blocks and "
                            << kEdges << " edges";
  EXPECT_EQ(status.message(), lab::TooIrreducible().message());
}

void Workload(const NewFinder& new_finder) {
  constexpr int kTrees = 2;
  constexpr int kLoops = 3;
  constexpr int kBaseLoops = 4;
  std::unique_ptr<lab::LoopFinder> finder = new_finder();
  lab::BuildSimpleCfg(*finder);
  EXPECT_EQ(PassLoops(*finder), 0) << "simple CFG";
  lab::BuildWorkload(*finder, kTrees, kLoops, kBaseLoops);
  const int want = kTrees * kLoops * (3 * kBaseLoops + 1);
  for (int pass = 1; pass <= 2; ++pass) {
    EXPECT_EQ(PassLoops(*finder), want) << "pass " << pass;
  }
}

void DeepNest(const NewFinder& new_finder, int depth) {
  // A chain 0 -> 1 -> ... -> 2*depth+1, where block n - i jumps back to
  // block i for i from 1 to depth, n being 2*depth + 1: loop i holds loop
  // i+1, and blocks i and n - i.
  const int n = 2 * depth + 1;
  std::unique_ptr<lab::LoopFinder> finder = new_finder();
  for (int i = 0; i < n; ++i) finder->AddEdge(i, i + 1);
  for (int i = 1; i <= depth; ++i) finder->AddEdge(n - i, i);
  for (int pass = 1; pass <= 2; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    ASSERT_EQ(PassLoops(*finder), depth);
    const lab::Structure s = finder->Describe();
    EXPECT_EQ(s.root_nesting, depth);
    int checked = 0;
    for (const lab::Loop& loop : s.loops) {
      const int i = loop.header;
      std::vector<int> blocks = loop.blocks;
      std::sort(blocks.begin(), blocks.end());
      const std::vector<int> want_blocks = {i, n - i};
      if (loop.depth != i || loop.nesting != depth - i ||
          loop.parent != (i == 1 ? lab::kNoParent : i - 1) ||
          loop.kind != lab::Kind::kReducible || blocks != want_blocks) {
        ADD_FAILURE() << "loop " << i << ": depth " << loop.depth
                      << " nesting " << loop.nesting << " parent "
                      << loop.parent << " kind " << lab::KindName(loop.kind)
                      << " " << blocks.size() << " blocks";
        return;
      }
      ++checked;
    }
    EXPECT_EQ(checked, depth);
  }
}

}  // namespace labtest
