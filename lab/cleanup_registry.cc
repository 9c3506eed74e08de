#include "lab/cleanup_registry.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace ccreplay::lab {
namespace {

// Where `ip netns add` bind-mounts a named namespace (iproute2 ip/ipnetns.c,
// NETNS_RUN_DIR).
constexpr char kNetnsRunDir[] = "/run/netns/";

sigset_t CleanupSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, signo);
  return signals;
}

}  // namespace

CleanupRegistry& CleanupRegistry::Global() {
  static CleanupRegistry* registry = new CleanupRegistry();
  return *registry;
}

void CleanupRegistry::HandleSignal(int signo) {
  CleanupRegistry& registry = Global();
  registry.dying_.store(true);
  // A creation in progress runs on another thread (the creating thread has
  // these signals blocked): let it register what it creates.
  while (registry.creations_.load() > 0) {
    timespec pause = {0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  registry.RunAll();
  signal(signo, SIG_DFL);
  raise(signo);
}

SignalDeferral::SignalDeferral() {
  sigset_t signals = CleanupSignals();
  pthread_sigmask(SIG_BLOCK, &signals, &previous_mask_);
  CleanupRegistry& registry = CleanupRegistry::Global();
  registry.creations_.fetch_add(1);
  if (registry.dying_.load()) {
    registry.creations_.fetch_sub(1);
    for (;;) pause();  // the handler's thread ends the process
  }
}

SignalDeferral::~SignalDeferral() {
  CleanupRegistry::Global().creations_.fetch_sub(1);
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void CleanupRegistry::InstallSignalHandlers() {
  Global();  // constructed before any signal can arrive
  struct sigaction action = {};
  action.sa_handler = HandleSignal;
  action.sa_mask = CleanupSignals();
  for (int signo : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signo, &action, nullptr);
}

int CleanupRegistry::Add(Action action, absl::string_view path) {
  if (path.size() >= kPathCapacity) return -1;
  int index = size_.fetch_add(1);
  if (index >= kCapacity) {
    size_.store(kCapacity);
    return -1;
  }
  Entry& entry = entries_[index];
  entry.action = action;
  std::memcpy(entry.path, path.data(), path.size());
  entry.path[path.size()] = '\0';
  entry.pending.store(true, std::memory_order_release);
  return index;
}

int CleanupRegistry::AddProcess(pid_t pid) {
  int index = Add(Action::kKillProcess, "");
  if (index >= 0) entries_[index].pid = pid;
  return index;
}

void CleanupRegistry::Run(int handle) {
  if (handle < 0 || handle >= kCapacity) return;
  if (entries_[handle].pending.exchange(false)) Execute(entries_[handle]);
}

void CleanupRegistry::Dismiss(int handle) {
  if (handle >= 0 && handle < kCapacity) entries_[handle].pending.store(false);
}

void CleanupRegistry::RunAll() {
  int size = size_.load(std::memory_order_acquire);
  if (size > kCapacity) size = kCapacity;
  for (int i = size - 1; i >= 0; --i) Run(i);
}

void CleanupRegistry::Execute(Entry& entry) {
  switch (entry.action) {
    case Action::kKillProcess:
      if (entry.pid > 0) kill(entry.pid, SIGTERM);
      break;
    case Action::kDeleteNetns: {
      // What `ip netns delete` does (iproute2 ip/ipnetns.c, netns_delete):
      // detach the bind mount that keeps the namespace alive, then remove
      // the file. The kernel frees the namespace, its veths and qdiscs once
      // no process or socket uses it.
      char path[sizeof(kNetnsRunDir) + kPathCapacity];
      std::memcpy(path, kNetnsRunDir, sizeof(kNetnsRunDir) - 1);
      std::memcpy(path + sizeof(kNetnsRunDir) - 1, entry.path,
                  std::strlen(entry.path) + 1);
      umount2(path, MNT_DETACH);
      unlink(path);
      break;
    }
    case Action::kRemoveDir:
      rmdir(entry.path);
      break;
    case Action::kUnmount:
      umount2(entry.path, MNT_DETACH);
      break;
    case Action::kUnlink:
      unlink(entry.path);
      break;
  }
}

}  // namespace ccreplay::lab
