// Undo actions for everything a lab run creates outside its own memory:
// network namespaces, child processes, the tracefs instance and its mount,
// temporary files. Actions run in reverse order of registration, exactly
// once, on the normal path (RunAll from the lab's scope guard) or from a
// signal handler (SIGINT, SIGTERM, SIGHUP): every action uses only
// async-signal-safe system calls (signal-safety(7): kill, umount2, unlink,
// rmdir) and the registry is a fixed array, so no locks or allocation run in
// the handler.
#ifndef CCREPLAY_LAB_CLEANUP_REGISTRY_H_
#define CCREPLAY_LAB_CLEANUP_REGISTRY_H_

#include <sys/types.h>

#include <atomic>

#include "absl/strings/string_view.h"

namespace ccreplay::lab {

class CleanupRegistry {
 public:
  enum class Action {
    kKillProcess,  // kill(pid, SIGTERM)
    kDeleteNetns,  // umount2(/run/netns/NAME, MNT_DETACH) + unlink
    kRemoveDir,    // rmdir(path): tracefs instance, empty temp dir
    kUnmount,      // umount2(path, MNT_DETACH)
    kUnlink,       // unlink(path)
  };
  static constexpr int kCapacity = 128;
  static constexpr int kPathCapacity = 256;

  // The process-wide registry the signal handlers use.
  static CleanupRegistry& Global();

  // Installs handlers for SIGINT, SIGTERM and SIGHUP that run every pending
  // action and then re-raise the signal with its default disposition.
  static void InstallSignalHandlers();

  // Returns a handle for Run(), or -1 when the registry is full or the path
  // does not fit (the caller then refuses to create the resource).
  int Add(Action action, absl::string_view path);
  int AddProcess(pid_t pid);

  // Runs one action now (if still pending) / forgets it (the owner undid it).
  void Run(int handle);
  void Dismiss(int handle);

  // Runs every pending action, newest first. Async-signal-safe.
  void RunAll();

 private:
  struct Entry {
    std::atomic<bool> pending{false};
    Action action = Action::kUnlink;
    pid_t pid = 0;
    char path[kPathCapacity] = {};
  };
  void Execute(Entry& entry);

  Entry entries_[kCapacity];
  std::atomic<int> size_{0};
};

// Runs a registered action when it goes out of scope, unless dismissed.
class ScopedCleanup {
 public:
  explicit ScopedCleanup(int handle) : handle_(handle) {}
  ScopedCleanup(const ScopedCleanup&) = delete;
  ScopedCleanup& operator=(const ScopedCleanup&) = delete;
  ~ScopedCleanup() {
    if (handle_ >= 0) CleanupRegistry::Global().Run(handle_);
  }

 private:
  int handle_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_CLEANUP_REGISTRY_H_
