#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cc/lab/cfg_file.h"
#include "cc/lab/driver.h"
#include "cc/lab/dump.h"
#include "cc/lab/flags.h"
#include "cc/lab/lab.h"
#include "cc/lab/options.h"
#include "cc/lab/quote.h"
#include "cc/lab/workload.h"

namespace lab {
namespace {

// EdgeRecorder is a Graph that remembers what it was given.
class EdgeRecorder : public Graph {
 public:
  void CreateNode(int name) override { blocks.insert(name); }
  void AddEdge(int from, int to) override {
    CreateNode(from);
    CreateNode(to);
    edges.emplace_back(from, to);
  }

  std::set<int> blocks;
  std::vector<std::pair<int, int>> edges;
};

TEST(WorkloadTest, StandardWorkloadSize) {
  EdgeRecorder g;
  BuildSimpleCfg(g);
  BuildWorkload(g, 10, 100, 25);
  EXPECT_EQ(g.blocks.size(), 252013u);
  EXPECT_EQ(*g.blocks.begin(), 0);
  EXPECT_EQ(*g.blocks.rbegin(), 252012) << "names are not dense";
  EXPECT_EQ(WorkloadBlocks(10, 100, 25), 252013);
}

TEST(WorkloadTest, SimpleCfg) {
  EdgeRecorder g;
  BuildSimpleCfg(g);
  EXPECT_EQ(g.blocks, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(g.edges, (std::vector<std::pair<int, int>>{{0, 2}}));
}

TEST(WorkloadTest, WorkloadBlocksOverflow) {
  const std::int64_t cases[][3] = {
      {kMaxBlocks, kMaxBlocks, kMaxBlocks},
      {1, 1, kMaxBlocks},
      {kMaxBlocks, 1, 0},
      {2, kMaxBlocks / 2, 1},
  };
  for (const auto& c : cases) {
    EXPECT_GT(WorkloadBlocks(c[0], c[1], c[2]), kMaxBlocks)
        << c[0] << " " << c[1] << " " << c[2];
  }
  EXPECT_EQ(WorkloadBlocks(0, kMaxBlocks, kMaxBlocks), 3) << "no trees";
}

TEST(QuoteTest, Quote) {
  const std::pair<std::string, std::string> cases[] = {
      {"", R"("")"},
      {"abc 12", R"("abc 12")"},
      {"a\"b\\c", R"("a\"b\\c")"},
      {"\a\b\f\n\r\t\v", R"("\a\b\f\n\r\t\v")"},
      {std::string("1\0", 2), R"("1\x00")"},
      {"\x7f\x1b", R"("\x7f\x1b")"},
      {"h\xc3\xa9", "\"h\xc3\xa9\""},                // é is printable
      {"\xc2\xa0", R"("\u00a0")"},                   // no-break space
      {"\xc2\xad", R"("\u00ad")"},                   // soft hyphen
      {"\xe2\x80\xa8", R"("\u2028")"},               // line separator
      {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},  // emoji
      {"\xf3\xa0\x80\x81", R"("\U000e0001")"},       // a tag, a format char
      {"\xef\xbf\xbd", "\"\xef\xbf\xbd\""},          // U+FFFD itself
      {"\xff", R"("\xff")"},
      {"\xc3", R"("\xc3")"},                  // truncated
      {"\xc0\xaf", R"("\xc0\xaf")"},          // overlong
      {"\xed\xa0\x80", R"("\xed\xa0\x80")"},  // surrogate
      {"\xf4\x90\x80\x80", R"("\xf4\x90\x80\x80")"},  // past U+10FFFF
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(Quote(in), want) << in;
}

TEST(QuoteTest, IsPrint) {
  EXPECT_TRUE(IsPrint(' '));
  EXPECT_TRUE(IsPrint('~'));
  EXPECT_FALSE(IsPrint('\t'));
  EXPECT_FALSE(IsPrint(0x7f));
  EXPECT_FALSE(IsPrint(0xa0));
  EXPECT_TRUE(IsPrint(0xa1));
  EXPECT_TRUE(IsPrint(0x4e2d));  // 中
  EXPECT_FALSE(IsPrint(0xe000));  // private use
  EXPECT_FALSE(IsPrint(0x10ffff));
}

TEST(QuoteTest, TrimSpace) {
  EXPECT_EQ(TrimSpace(" \t1 2\r\n\v\f"), "1 2");
  EXPECT_EQ(TrimSpace("\xc2\xa0" "1 2\xe3\x80\x80"), "1 2");
  EXPECT_EQ(TrimSpace("\xc2\x85x\xe2\x80\x8a"), "x");
  EXPECT_EQ(TrimSpace("\xa0x\xa0"), "\xa0x\xa0");  // not UTF-8: no space
  EXPECT_EQ(TrimSpace("x\xe2\x80\x8b"), "x\xe2\x80\x8b");  // zero width
  EXPECT_EQ(TrimSpace("   "), "");
}

TEST(FlagsTest, ParseInt) {
  const std::pair<std::string, std::int64_t> good[] = {
      {"0", 0},
      {"15000", 15000},
      {"+7", 7},
      {"-7", -7},
      {"0x1F", 31},
      {"0X1f", 31},
      {"017", 15},
      {"0o17", 15},
      {"0b101", 5},
      {"1_000", 1000},
      {"0x_1f", 31},
      {"0_7", 7},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
  };
  for (const auto& [in, want] : good) {
    std::int64_t value = -1;
    std::string error;
    EXPECT_TRUE(ParseInt(in, &value, &error)) << in << ": " << error;
    EXPECT_EQ(value, want) << in;
  }
  const std::pair<std::string, std::string> bad[] = {
      {"", "parse error"},
      {"abc", "parse error"},
      {"1.5", "parse error"},
      {" 1", "parse error"},
      {"08", "parse error"},
      {"0x", "parse error"},
      {"0b2", "parse error"},
      {"+-1", "parse error"},
      {"-", "parse error"},
      {"1__0", "parse error"},
      {"_1", "parse error"},
      {"1_", "parse error"},
      {"9223372036854775808", "value out of range"},
      {"-9223372036854775809", "value out of range"},
      {"99999999999999999999", "value out of range"},
      {"0xffffffffffffffff", "value out of range"},
      // Go reports the overflow as soon as it happens, before the 'x'.
      {"99999999999999999999x", "value out of range"},
  };
  for (const auto& [in, want] : bad) {
    std::int64_t value = 0;
    std::string error;
    EXPECT_FALSE(ParseInt(in, &value, &error)) << in;
    EXPECT_EQ(error, want) << in;
  }
}

TEST(FlagsTest, ParseBool) {
  for (const char* s : {"1", "t", "T", "TRUE", "true", "True"}) {
    bool value = false;
    EXPECT_TRUE(ParseBool(s, &value) && value) << s;
  }
  for (const char* s : {"0", "f", "F", "FALSE", "false", "False"}) {
    bool value = true;
    EXPECT_TRUE(ParseBool(s, &value) && !value) << s;
  }
  for (const char* s : {"", "yes", "tRUE", "2", " true"}) {
    bool value;
    EXPECT_FALSE(ParseBool(s, &value)) << s;
  }
}

// TestFlags is a FlagSet with an int, a bool, a string flag and the
// options every stage has.
struct TestFlags {
  TestFlags() : flags("havlak") {
    options.Register(flags);
    flags.Bool(&reuse, "reuseloopgraph", true, "reuse it");
  }

  FlagSet::ParseResult Parse(std::vector<std::string> args) {
    return flags.Parse(args);
  }

  FlagSet flags;
  Options options;
  bool reuse;
};

TEST(FlagsTest, Defaults) {
  TestFlags t;
  ASSERT_EQ(t.Parse({}), FlagSet::ParseResult::kOk);
  EXPECT_EQ(t.options.dummy, 15000);
  EXPECT_EQ(t.options.iterations, 50);
  EXPECT_EQ(t.options.trees, 10);
  EXPECT_EQ(t.options.loops, 100);
  EXPECT_EQ(t.options.base_loops, 25);
  EXPECT_EQ(t.options.cfg_file, "");
  EXPECT_FALSE(t.options.dump);
  EXPECT_TRUE(t.reuse);
  EXPECT_TRUE(t.flags.Visited().empty());
  EXPECT_TRUE(t.flags.args().empty());
}

TEST(FlagsTest, Forms) {
  TestFlags t;
  ASSERT_EQ(t.Parse({"-trees=3", "-loops", "4", "--baseloops=5", "--dummy",
                     "6", "-dump", "-reuseloopgraph=false", "-cfg=a=b",
                     "-iterations", "-1", "-trees", "0x10"}),
            FlagSet::ParseResult::kOk)
      << t.flags.error();
  EXPECT_EQ(t.options.trees, 16) << "the last one wins";
  EXPECT_EQ(t.options.loops, 4);
  EXPECT_EQ(t.options.base_loops, 5);
  EXPECT_EQ(t.options.dummy, 6);
  EXPECT_EQ(t.options.iterations, -1);
  EXPECT_EQ(t.options.cfg_file, "a=b");
  EXPECT_TRUE(t.options.dump);
  EXPECT_FALSE(t.reuse);
  EXPECT_EQ(t.flags.Visited(),
            (std::vector<std::string>{"baseloops", "cfg", "dummy", "dump",
                                      "iterations", "loops", "reuseloopgraph",
                                      "trees"}));
  EXPECT_TRUE(t.flags.args().empty());
}

TEST(FlagsTest, BoolFlagTakesNoArgument) {
  TestFlags t;
  ASSERT_EQ(t.Parse({"-dump", "false", "-trees=1"}),
            FlagSet::ParseResult::kOk);
  EXPECT_TRUE(t.options.dump);
  EXPECT_EQ(t.options.trees, 10) << "flags stop at the first non-flag";
  EXPECT_EQ(t.flags.args(), (std::vector<std::string>{"false", "-trees=1"}));
  EXPECT_EQ(t.flags.Visited(), (std::vector<std::string>{"dump"}));
}

TEST(FlagsTest, EndOfFlags) {
  TestFlags t;
  ASSERT_EQ(t.Parse({"-trees=1", "--", "-loops=2"}),
            FlagSet::ParseResult::kOk);
  EXPECT_EQ(t.options.trees, 1);
  EXPECT_EQ(t.options.loops, 100);
  EXPECT_EQ(t.flags.args(), (std::vector<std::string>{"-loops=2"}));

  TestFlags dash;
  ASSERT_EQ(dash.Parse({"-", "-trees=1"}), FlagSet::ParseResult::kOk);
  EXPECT_EQ(dash.flags.args(), (std::vector<std::string>{"-", "-trees=1"}));
}

TEST(FlagsTest, Help) {
  for (const char* arg : {"-h", "-help", "--help", "--h", "-help=no"}) {
    TestFlags t;
    EXPECT_EQ(t.Parse({"-trees=1", arg, "-bogus"}),
              FlagSet::ParseResult::kHelp)
        << arg;
  }
}

TEST(FlagsTest, Errors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-x"}, "flag provided but not defined: -x"},
      {{"--nope=1"}, "flag provided but not defined: -nope"},
      {{"-trees=abc"}, R"(invalid value "abc" for flag -trees: parse error)"},
      {{"-trees", "abc"},
       R"(invalid value "abc" for flag -trees: parse error)"},
      {{"-loops=99999999999999999999"},
       R"(invalid value "99999999999999999999" for flag -loops: )"
       "value out of range"},
      {{"-trees="}, R"(invalid value "" for flag -trees: parse error)"},
      {{"-trees"}, "flag needs an argument: -trees"},
      {{"-cfg"}, "flag needs an argument: -cfg"},
      {{"-dump=yes"}, R"(invalid boolean value "yes" for -dump: parse error)"},
      {{"-dump="}, R"(invalid boolean value "" for -dump: parse error)"},
      {{"---dump"}, "bad flag syntax: ---dump"},
      {{"-=1"}, "bad flag syntax: -=1"},
      {{"--=1"}, "bad flag syntax: --=1"},
      {{"-trees=\xff"}, R"(invalid value "\xff" for flag -trees: parse error)"},
  };
  for (const auto& [args, want] : cases) {
    TestFlags t;
    EXPECT_EQ(t.Parse(args), FlagSet::ParseResult::kError) << args[0];
    EXPECT_EQ(t.flags.error(), want) << args[0];
  }
}

TEST(FlagsTest, Usage) {
  TestFlags t;
  EXPECT_EQ(t.flags.Usage(),
            "Usage of havlak:\n"
            "  -baseloops int\n"
            "    \tthree-loop nests per outer loop (default 25)\n"
            "  -cfg file\n"
            "    \tread the CFG from file (one edge \"FROM TO\" per line, # "
            "comments, block 0 is the entry) instead of generating it\n"
            "  -dummy int\n"
            "    \tloop-finding passes over a tiny CFG before the main one is "
            "built (default 15000)\n"
            "  -dump\n"
            "    \tprint the loop structure found by the first pass\n"
            "  -iterations int\n"
            "    \tloop-finding passes over the main CFG after the first "
            "(default 50)\n"
            "  -loops int\n"
            "    \touter loops per subtree (default 100)\n"
            "  -reuseloopgraph\n"
            "    \treuse it (default true)\n"
            "  -trees int\n"
            "    \tsubtrees of the generated CFG (default 10)\n");
}

TEST(FlagsTest, UsageOfOtherFlags) {
  FlagSet flags("p");
  bool b;
  std::int64_t i;
  std::string s;
  flags.Bool(&b, "v", false, "verbose\nand more");
  flags.Int(&i, "n", 0, "a `count`");
  flags.String(&s, "s", "x y", "one ` quote");
  EXPECT_EQ(flags.Usage(),
            "Usage of p:\n"
            "  -n count\n"
            "    \ta count\n"
            "  -s string\n"
            "    \tone ` quote (default \"x y\")\n"
            "  -v\tverbose\n"
            "    \tand more\n");
}

// RunCommandLine runs ParseCommandLine on args and exits with 1 to go on or
// with the exit code it gives, for EXPECT_EXIT.
[[noreturn]] void RunCommandLine(std::vector<std::string> args) {
  TestFlags t;
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  int exit_code = -1;
  if (ParseCommandLine(t.flags, static_cast<int>(argv.size()), argv.data(),
                       &exit_code)) {
    std::exit(t.options.trees == 7 ? 1 : 3);
  }
  std::exit(exit_code);
}

TEST(FlagsTest, ParseCommandLine) {
  EXPECT_EXIT(RunCommandLine({"prog", "-trees=7"}), testing::ExitedWithCode(1),
              "^$");
  EXPECT_EXIT(RunCommandLine({"prog", "-help"}), testing::ExitedWithCode(0),
              "^Usage of havlak:\n  -baseloops int\n");
  EXPECT_EXIT(RunCommandLine({"prog", "-x"}), testing::ExitedWithCode(2),
              "^flag provided but not defined: -x\nUsage of havlak:\n");
}

Status Validate(std::vector<std::string> args) {
  TestFlags t;
  if (t.Parse(args) != FlagSet::ParseResult::kOk) {
    return Status::Failure("parse: " + t.flags.error());
  }
  return t.options.Validate(t.flags);
}

TEST(OptionsTest, Valid) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {"-cfg", "x.cfg", "-iterations", "3", "-dump"},
           {"-cfg="},  // an empty -cfg is no -cfg
           {"-cfg=", "-trees=1"},
           {"-trees=0", "-loops=0", "-baseloops=0", "-dummy=0"},
           {"-dummy=1000000", "-iterations=1000000"},
           {"-trees=1", "-loops=1", "-baseloops=399999"},  // 3999996 blocks
       }) {
    const Status status = Validate(args);
    EXPECT_TRUE(status.ok()) << status.message();
  }
}

TEST(OptionsTest, Invalid) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"extra"},
       R"(unexpected argument "extra" (all input comes through flags))"},
      {{"-dump", "a\tb", "c"},
       R"(unexpected argument "a\tb" (all input comes through flags))"},
      {{"-cfg=x", "-trees=3", "-dummy=1"},
       "-dummy, -trees: not allowed with -cfg, which replaces the generated "
       "CFG"},
      {{"-loops=1", "-baseloops=2", "-cfg", "x", "-trees=3", "-dummy=1"},
       "-baseloops, -dummy, -loops, -trees: not allowed with -cfg, which "
       "replaces the generated CFG"},
      {{"-trees=-1"}, "-trees=-1: must be between 0 and 4000000"},
      {{"-dummy=1000001"}, "-dummy=1000001: must be between 0 and 1000000"},
      {{"-iterations=1000001"},
       "-iterations=1000001: must be between 0 and 1000000"},
      {{"-iterations=-9223372036854775808"},
       "-iterations=-9223372036854775808: must be between 0 and 1000000"},
      {{"-loops=4000001"}, "-loops=4000001: must be between 0 and 4000000"},
      {{"-baseloops=4000001"},
       "-baseloops=4000001: must be between 0 and 4000000"},
      {{"-dummy=-1", "-trees=-1"}, "-dummy=-1: must be between 0 and 1000000"},
      {{"-loops=100000", "-baseloops=1000"},
       "-trees=10 -loops=100000 -baseloops=1000: the CFG would have more "
       "than 4000000 blocks"},
      {{"-trees=4000000", "-loops=4000000", "-baseloops=4000000"},
       "-trees=4000000 -loops=4000000 -baseloops=4000000: the CFG would "
       "have more than 4000000 blocks"},
  };
  for (const auto& [args, want] : cases) {
    const Status status = Validate(args);
    EXPECT_TRUE(status.is_usage()) << args[0];
    EXPECT_EQ(status.message(), want) << args[0];
    EXPECT_EQ(ExitCode(status), 2);
  }
}

TEST(LabTest, ExitCodes) {
  EXPECT_EQ(ExitCode(Status::Ok()), 0);
  EXPECT_EQ(ExitCode(Status::Usage("u")), 2);
  EXPECT_EQ(ExitCode(Status::Failure("f")), 1);
}

TEST(LabTest, Report) {
  EXPECT_EXIT(std::exit(Report("/a/b/havlak6cc", Status::Usage("bad -x"))),
              testing::ExitedWithCode(2), "^havlak6cc: bad -x\n$");
  EXPECT_EXIT(std::exit(Report("prog", Status::Failure("oops"))),
              testing::ExitedWithCode(1), "^prog: oops\n$");
  EXPECT_EXIT(std::exit(Report("dir/", Status::Usage("u"))),
              testing::ExitedWithCode(2), "^dir: u\n$");
  EXPECT_EXIT(std::exit(Report("prog", Status::Ok())),
              testing::ExitedWithCode(0), "^$");
}

TEST(LabTest, ErrnoMessage) {
  EXPECT_EQ(ErrnoMessage(ENOENT), "no such file or directory");
  EXPECT_EQ(ErrnoMessage(EACCES), "permission denied");
  EXPECT_EQ(ErrnoMessage(EISDIR), "is a directory");
}

// TempFile writes content to a new file in the test's temporary directory
// and returns its path.
std::string TempFile(const std::string& content) {
  static int count = 0;
  const std::string path =
      testing::TempDir() + "/g" + std::to_string(getpid()) + "_" +
      std::to_string(count++) + ".cfg";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  EXPECT_NE(file, nullptr) << path;
  if (file != nullptr) {
    std::fwrite(content.data(), 1, content.size(), file);
    std::fclose(file);
  }
  return path;
}

TEST(CfgFileTest, Read) {
  const std::string path = TempFile(
      "# comment\n\n 7\t2147483647 # trailing\r\n0 7\n7 7\n0007 0\n"
      "\v\f7\r0\r\n#0 x y\n   \t\n0 7");  // the last line has no newline
  CfgFile cfg;
  const Status status = ReadCfgFile(path, &cfg);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(cfg.names, (std::vector<int>{0, 7, 2147483647}));
  EXPECT_EQ(cfg.edges, (std::vector<Edge>{
                           {1, 2}, {0, 1}, {1, 1}, {1, 0}, {1, 0}, {0, 1}}));

  EdgeRecorder g;
  cfg.Replay(g);
  EXPECT_EQ(g.blocks, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(g.edges, (std::vector<std::pair<int, int>>{
                         {1, 2}, {0, 1}, {1, 1}, {1, 0}, {1, 0}, {0, 1}}));
}

TEST(CfgFileTest, ReadEmpty) {
  for (const char* content : {"", "\n", "# nothing\n", "\r"}) {
    CfgFile cfg;
    const Status status = ReadCfgFile(TempFile(content), &cfg);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(cfg.names, (std::vector<int>{0})) << "block 0 is always there";
    EXPECT_TRUE(cfg.edges.empty());
  }
}

TEST(CfgFileTest, LongLines) {
  // Lines across the reader's 64 KiB reads, up to the longest allowed.
  const std::string pad(20000, ' ');
  CfgFile cfg;
  Status status = ReadCfgFile(
      TempFile(pad + "1" + pad + "2" + pad + "\n3 4" + pad + "\n5 6 #" +
               std::string(kMaxLineBytes - 5, 'x')),
      &cfg);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(cfg.names, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cfg.edges, (std::vector<Edge>{{1, 2}, {3, 4}, {5, 6}}));

  // One byte more is refused, in bounded memory.
  status = ReadCfgFile(
      TempFile("0 1\n1 0 #" + std::string(kMaxLineBytes - 4, 'x') + "\n"),
      &cfg);
  EXPECT_TRUE(status.is_usage());
  EXPECT_NE(status.message().find(":2: a line longer than 65536 bytes"),
            std::string::npos)
      << status.message();
}

TEST(CfgFileTest, Errors) {
  const std::pair<std::string, std::string> cases[] = {
      {"0 1\n1\n", R"(:2: want an edge "FROM TO", got "1")"},
      {"0 1 2\n", R"(:1: want an edge "FROM TO", got "0 1 2")"},
      {" \t0  1 2 # x\r\n", R"(:1: want an edge "FROM TO", got "0  1 2")"},
      {"0 1 2\xc2\xa0\n", R"(:1: want an edge "FROM TO", got "0 1 2")"},
      {"0\xc2\xa0" "1\n",
       R"(:1: want an edge "FROM TO", got "0\u00a01")"},
      {"0 -1\n", R"(:1: block "-1" is not a number between 0 and 2147483647)"},
      {"0 +1\n", R"(:1: block "+1" is not a number between 0 and 2147483647)"},
      {"\n\n0 2147483648\n",
       R"(:3: block "2147483648" is not a number between 0 and 2147483647)"},
      {"0 99999999999999999999999\n",
       R"(:1: block "99999999999999999999999" is not a number between 0 and )"
       "2147483647"},
      {"0 x\n", R"(:1: block "x" is not a number between 0 and 2147483647)"},
      {"x 0\n", R"(:1: block "x" is not a number between 0 and 2147483647)"},
      {"0x1 0\n",
       R"(:1: block "0x1" is not a number between 0 and 2147483647)"},
      {std::string("0 1\0\n", 5),
       R"(:1: block "1\x00" is not a number between 0 and 2147483647)"},
      {"1 2\n3 \xff\n",
       R"(:2: block "\xff" is not a number between 0 and 2147483647)"},
      {"0 1\n2 3 4", R"(:2: want an edge "FROM TO", got "2 3 4")"},
  };
  for (const auto& [content, want] : cases) {
    const std::string path = TempFile(content);
    CfgFile cfg;
    const Status status = ReadCfgFile(path, &cfg);
    EXPECT_TRUE(status.is_usage()) << content;
    EXPECT_EQ(status.message(), path + want) << content;
  }
}

TEST(CfgFileTest, MissingFile) {
  const std::string path = testing::TempDir() + "/missing.cfg";
  CfgFile cfg;
  const Status status = ReadCfgFile(path, &cfg);
  EXPECT_TRUE(status.is_usage());
  EXPECT_EQ(status.message(),
            "-cfg: open " + path + ": no such file or directory");
}

TEST(CfgFileTest, Directory) {
  const std::string path = testing::TempDir() + "/dir.cfg";
  mkdir(path.c_str(), 0755);
  CfgFile cfg;
  const Status status = ReadCfgFile(path, &cfg);
  EXPECT_TRUE(status.is_usage());
  EXPECT_EQ(status.message(), "-cfg: " + path + " is a directory");
}

TEST(DumpTest, Format) {
  Structure s;
  s.root_nesting = 2;
  Loop self;
  self.header = 2;
  self.parent = 1;
  self.depth = 2;
  self.nesting = 0;
  self.kind = Kind::kSelf;
  self.blocks = {2};
  Loop irreducible;
  irreducible.header = 1;
  irreducible.parent = kNoParent;
  irreducible.depth = 1;
  irreducible.nesting = 1;
  irreducible.kind = Kind::kIrreducible;
  irreducible.blocks = {3, 1};
  Loop reducible;
  reducible.header = 4;
  reducible.depth = 1;
  reducible.blocks = {6, 4, 5};
  s.loops = {self, irreducible, reducible};

  const std::vector<int> names = {0, 10, 20, 30, 9, 100, 11};
  EXPECT_EQ(Dump(s, &names),
            "root depth=0 nest=2\n"
            "loop 9 depth=1 nest=0 parent=root reducible blocks=9,11,100\n"
            "loop 10 depth=1 nest=1 parent=root irreducible blocks=10,30\n"
            "loop 20 depth=2 nest=0 parent=10 self blocks=20\n");
  EXPECT_EQ(Dump(s, nullptr),
            "root depth=0 nest=2\n"
            "loop 1 depth=1 nest=1 parent=root irreducible blocks=1,3\n"
            "loop 2 depth=2 nest=0 parent=1 self blocks=2\n"
            "loop 4 depth=1 nest=0 parent=root reducible blocks=4,5,6\n");
  EXPECT_EQ(Dump(Structure(), nullptr), "root depth=0 nest=0\n");
}

TEST(DumpTest, LoopKind) {
  EXPECT_EQ(LoopKind(true, false), Kind::kReducible);
  EXPECT_EQ(LoopKind(false, false), Kind::kIrreducible);
  EXPECT_EQ(LoopKind(true, true), Kind::kSelf);
  EXPECT_EQ(LoopKind(false, true), Kind::kIrreducible);
  EXPECT_STREQ(KindName(Kind::kReducible), "reducible");
  EXPECT_STREQ(KindName(Kind::kIrreducible), "irreducible");
  EXPECT_STREQ(KindName(Kind::kSelf), "self");
}

// CountingFinder finds one loop per edge, headed by the edge's source:
// 21 in the workload DriverTest.Workload builds.
class CountingFinder : public LoopFinder {
 public:
  void CreateNode(int name) override { graph_.CreateNode(name); }
  void AddEdge(int from, int to) override { graph_.AddEdge(from, to); }
  Status FindLoops(int* loops) override {
    ++passes;
    *loops = static_cast<int>(graph_.edges.size());
    return Status::Ok();
  }
  Structure Describe() const override {
    Structure s;
    s.root_nesting = 1;
    for (const auto& [from, to] : graph_.edges) {
      Loop loop;
      loop.header = from;
      loop.depth = 1;
      loop.blocks = {from, to};
      s.loops.push_back(loop);
    }
    return s;
  }

  int passes = 0;

 private:
  EdgeRecorder graph_;
};

// RunToString runs the driver into a temporary file and returns what it
// wrote.
std::string RunToString(const Options& options, CountingFinder& finder,
                        Status* status) {
  std::FILE* out = std::tmpfile();
  EXPECT_NE(out, nullptr);
  if (out == nullptr) return "";
  *status = Run(out, options, finder);
  std::rewind(out);
  std::string text;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, out)) > 0) {
    text.append(buffer, n);
  }
  std::fclose(out);
  return text;
}

TEST(DriverTest, Workload) {
  Options options;
  options.dummy = 3;
  options.iterations = 4;
  options.trees = 1;
  options.loops = 1;
  options.base_loops = 1;
  options.dump = false;
  CountingFinder finder;
  Status status = Status::Failure("not run");
  EXPECT_EQ(RunToString(options, finder, &status),
            "Constructing simple CFG...\n"
            "3 dummy loops\n"
            "Constructing CFG...\n"
            "Performing loop recognition\n"
            "1 iteration\n"
            "# of loops: 21 (plus 1 artificial root node)\n"
            "Another 4 iterations...\n"
            "....\n"
            "# of loops: 21 (plus 1 artificial root node)\n");
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(finder.passes, 3 + 1 + 4);
}

TEST(DriverTest, CfgFileWithDump) {
  Options options;
  options.cfg_file = TempFile("5 6\n6 5\n");
  options.dummy = 15000;  // not used with -cfg
  options.dump = true;
  CountingFinder finder;
  Status status = Status::Failure("not run");
  EXPECT_EQ(RunToString(options, finder, &status),
            "Read " + options.cfg_file + ": 3 blocks, 2 edges\n"
            "Performing loop recognition\n"
            "1 iteration\n"
            "# of loops: 2 (plus 1 artificial root node)\n"
            "root depth=0 nest=1\n"
            "loop 5 depth=1 nest=0 parent=root reducible blocks=5,6\n"
            "loop 6 depth=1 nest=0 parent=root reducible blocks=5,6\n");
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(finder.passes, 1);
}

TEST(DriverTest, BadCfgFile) {
  Options options;
  options.cfg_file = TempFile("0 1\nbad\n");
  CountingFinder finder;
  Status status = Status::Ok();
  EXPECT_EQ(RunToString(options, finder, &status), "");
  EXPECT_TRUE(status.is_usage());
  EXPECT_EQ(status.message(),
            options.cfg_file + R"(:2: want an edge "FROM TO", got "bad")");
  EXPECT_EQ(finder.passes, 0);
}

TEST(DriverTest, DumpWriteError) {
  std::FILE* full = std::fopen("/dev/full", "w");
  if (full == nullptr) GTEST_SKIP() << "no /dev/full";
  Options options;
  options.cfg_file = TempFile("0 1\n1 0\n");
  options.dump = true;
  CountingFinder finder;
  const Status status = lab::Run(full, options, finder);
  std::fclose(full);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(status.is_usage());
  EXPECT_EQ(status.message(),
            "write /dev/stdout: no space left on device");
}

}  // namespace
}  // namespace lab
