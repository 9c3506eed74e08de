#include "lab/cleanup_registry.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

std::string MakeTempDir() {
  char path[] = "/tmp/ccreplay-cleanup-test-XXXXXX";
  EXPECT_NE(mkdtemp(path), nullptr);
  return path;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(CleanupRegistry, RunsNewestFirstAndOnce) {
  std::string dir = MakeTempDir();
  std::string file = dir + "/f";
  close(creat(file.c_str(), 0644));
  CleanupRegistry& registry = CleanupRegistry::Global();
  registry.Add(CleanupRegistry::Action::kRemoveDir, dir);
  int unlink_handle = registry.Add(CleanupRegistry::Action::kUnlink, file);
  // rmdir only succeeds if the newer unlink ran first.
  registry.RunAll();
  EXPECT_FALSE(Exists(file));
  EXPECT_FALSE(Exists(dir));
  // Already run: a second run must not touch a new file of the same name.
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  close(creat(file.c_str(), 0644));
  registry.Run(unlink_handle);
  registry.RunAll();
  EXPECT_TRUE(Exists(file));
  unlink(file.c_str());
  rmdir(dir.c_str());
}

TEST(CleanupRegistry, DismissedActionDoesNotRun) {
  std::string dir = MakeTempDir();
  int handle =
      CleanupRegistry::Global().Add(CleanupRegistry::Action::kRemoveDir, dir);
  CleanupRegistry::Global().Dismiss(handle);
  CleanupRegistry::Global().RunAll();
  EXPECT_TRUE(Exists(dir));
  rmdir(dir.c_str());
}

TEST(CleanupRegistry, KillsRegisteredProcess) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  int handle = CleanupRegistry::Global().AddProcess(child);
  CleanupRegistry::Global().Run(handle);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

// The signal path: a process that registered a directory and receives
// SIGTERM removes it and still dies of SIGTERM.
TEST(CleanupRegistry, SignalRunsCleanupThenDies) {
  std::string dir = MakeTempDir();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CleanupRegistry::InstallSignalHandlers();
    CleanupRegistry::Global().Add(CleanupRegistry::Action::kRemoveDir, dir);
    raise(SIGTERM);
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(Exists(dir));
}

}  // namespace
}  // namespace ccreplay::lab
