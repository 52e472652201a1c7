// Atomic file output: write, overwrite, streaming with commit and without, and failures that
// name the target path and leave no file behind.
#include "kinetrack/io/table/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_runner.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::readFile;
using testing::ScratchDir;
namespace fs = std::filesystem;

TEST(AtomicFile, WritesAndOverwritesWithoutLeavingTheTemporary) {
  ScratchDir dir("kinetrack_io_");
  const std::string path = dir.file("out.txt");
  writeFileAtomically(path, "first\n");
  EXPECT_EQ(readFile(path), "first\n");
  writeFileAtomically(path, std::string("sec\0ond", 7));  // binary, shorter: replaced whole
  EXPECT_EQ(readFile(path), std::string("sec\0ond", 7));
  writeFileAtomically(path, "");
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::file_size(path), 0u);
  EXPECT_FALSE(fs::exists(path + ".part"));
}

TEST(AtomicFile, MissingDirectoryThrowsNamingThePathAndLeavesNoFile) {
  ScratchDir dir("kinetrack_io_");
  const std::string path = dir.file("no/such/dir/out.txt");
  try {
    writeFileAtomically(path, "text");
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(e.message().find("cannot open"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".part"));
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(AtomicFile, FailedRenameKeepsTheDirectoryInTheWayAndRemovesTheTemporary) {
  ScratchDir dir("kinetrack_io_");
  const std::string path = dir.file("occupied");
  fs::create_directories(fs::path(path) / "child");  // a non-empty directory: rename fails
  try {
    writeFileAtomically(path, "text");
    ADD_FAILURE() << "replaced a directory";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.message().find("cannot rename"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_FALSE(fs::exists(path + ".part"));
}

TEST(AtomicFile, StreamingCommitsOrRemovesTheTemporary) {
  ScratchDir dir("kinetrack_io_");
  const std::string path = dir.file("stream.csv");
  writeFileAtomically(path, "old\n");
  {
    AtomicFile out(path);
    EXPECT_TRUE(out.isOpen());
    EXPECT_EQ(out.tempPath(), path + ".part");
    out.write("a,");
    out.write("b\n");
    EXPECT_TRUE(fs::exists(path + ".part"));
    EXPECT_EQ(readFile(path), "old\n");  // the target is untouched until commit()
  }                                      // destroyed without commit(): the old file stays, the temporary goes
  EXPECT_EQ(readFile(path), "old\n");
  EXPECT_FALSE(fs::exists(path + ".part"));

  AtomicFile out(path);
  out.write("new\n");
  AtomicFile moved = std::move(out);  // ownership of the temporary moves with it
  EXPECT_FALSE(out.isOpen());         // NOLINT(bugprone-use-after-move): a moved-from file is closed
  moved.commit();
  EXPECT_TRUE(moved.committed());
  EXPECT_FALSE(moved.isOpen());
  EXPECT_EQ(readFile(path), "new\n");
  EXPECT_FALSE(fs::exists(path + ".part"));
  EXPECT_THROW(moved.write("more"), InvalidArgument);
  EXPECT_THROW(moved.commit(), InvalidArgument);

  AtomicFile dropped(path);
  dropped.write("dropped\n");
  dropped.discard();
  EXPECT_FALSE(dropped.isOpen());
  EXPECT_FALSE(fs::exists(path + ".part"));
  EXPECT_EQ(readFile(path), "new\n");
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
