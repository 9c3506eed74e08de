// Undo actions for everything a lab run creates outside its own memory:
// network namespaces, child processes, the tracefs instance and its mount,
// temporary files. Actions run in reverse order of registration, exactly
// once, on the normal path (RunAll from the lab's scope guard) or from a
// signal handler (SIGINT, SIGTERM, SIGHUP): every action uses only
// async-signal-safe system calls (signal-safety(7): kill, umount2, unlink,
// rmdir) and the registry is a fixed array, so no locks or allocation run in
// the handler.
//
// A resource is created and registered inside a SignalDeferral, so the
// handler never runs between the two: it would not know the resource and
// leave it behind (an `ip netns add` that completes after the handler has
// run, then the process dies).
#ifndef CCREPLAY_LAB_CLEANUP_REGISTRY_H_
#define CCREPLAY_LAB_CLEANUP_REGISTRY_H_

#include <signal.h>
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
  friend class SignalDeferral;
  static void HandleSignal(int signo);

  struct Entry {
    std::atomic<bool> pending{false};
    Action action = Action::kUnlink;
    pid_t pid = 0;
    char path[kPathCapacity] = {};
  };
  void Execute(Entry& entry);

  Entry entries_[kCapacity];
  std::atomic<int> size_{0};
  // Creations in progress (SignalDeferral) and whether a handler has begun:
  // together they order "create + register" against "clean up and die"
  // across threads (see SignalDeferral).
  std::atomic<int> creations_{0};
  std::atomic<bool> dying_{false};
};

// Holds the cleanup signals off while the calling thread creates a
// resource and registers it. The signals are blocked in this thread; a
// handler that runs meanwhile on another thread waits until every
// deferral has ended (the resource is then registered) before it cleans
// up; a deferral that begins after a handler has started never returns
// (the process is about to die and must create nothing more). Code inside
// a deferral must not wait for another thread of the process.
class SignalDeferral {
 public:
  SignalDeferral();
  SignalDeferral(const SignalDeferral&) = delete;
  SignalDeferral& operator=(const SignalDeferral&) = delete;
  // A signal that arrived meanwhile is handled here, in this thread.
  ~SignalDeferral();

 private:
  sigset_t previous_mask_;
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
