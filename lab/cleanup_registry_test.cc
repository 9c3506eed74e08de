#include "lab/cleanup_registry.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

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

// A resource created inside a SignalDeferral is cleaned up by a signal that
// arrives meanwhile, whether the signal waits for the deferral to end (this
// thread) or lands on another thread, whose handler must wait for the
// registration: without the wait, that handler would clean up an empty
// registry and end the process while the directory is being made.
void CreateDirUnderSignal(const std::string& dir, bool other_thread) {
  CleanupRegistry::InstallSignalHandlers();
  std::thread idle;
  if (other_thread) {
    idle = std::thread([] {
      for (;;) pause();
    });
  }
  {
    // Created, then the signal, then registered: the window of a leak.
    SignalDeferral deferral;
    mkdir(dir.c_str(), 0755);
    kill(getpid(), SIGTERM);
    usleep(50'000);  // the other thread's handler is running by now
    CleanupRegistry::Global().Add(CleanupRegistry::Action::kRemoveDir, dir);
  }
  for (;;) pause();  // the handler ends the process
}

TEST(CleanupRegistry, SignalDuringDeferralCleansUpWhatItCreated) {
  for (bool other_thread : {false, true}) {
    std::string dir = MakeTempDir() + "/made";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) CreateDirUnderSignal(dir, other_thread);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << other_thread;
    EXPECT_EQ(WTERMSIG(status), SIGTERM) << other_thread;
    EXPECT_FALSE(Exists(dir)) << other_thread;
    rmdir(dir.substr(0, dir.rfind('/')).c_str());
  }
}

}  // namespace
}  // namespace ccreplay::lab
