// What a lab leaves when it is stopped hard, and that the next run or
// `ccreplay lab --cleanup` removes it (root only). The lab runs as the
// ccreplay binary, in a child process this test kills. The state compared
// is every lab-owned name (lab_owner.h) in `ip netns list`, the tracefs
// instances, /proc/mounts and /tmp; other labs may run side by side, so
// names that appear must belong to a live lab, and none may belong to the
// killed one.
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "lab/lab.h"
#include "lab/lab_owner.h"
#include "lab/subprocess.h"
#include "parsers/bundle.h"

namespace ccreplay::lab {
namespace {

const std::string kCcreplay =
    std::string(CCREPLAY_BINARY_DIR) + "/cli/ccreplay";

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

std::string LastComponent(absl::string_view path) {
  return std::string(path.substr(path.rfind('/') + 1));
}

// Lab-owned resources, each as "KIND NAME".
std::set<std::string> LabState() {
  std::set<std::string> state;
  absl::StatusOr<std::string> netns = RunProgram({"ip", "netns", "list"});
  EXPECT_TRUE(netns.ok()) << netns.status();
  for (const std::string& line : Lines(netns.value_or(""))) {
    state.insert("netns " + line.substr(0, line.find(' ')));
  }
  for (const std::string& line : Lines(ReadFile("/proc/self/mounts"))) {
    std::vector<std::string> fields = absl::StrSplit(line, ' ');
    if (fields.size() > 2) state.insert("mount " + fields[1]);
  }
  absl::StatusOr<std::string> tmp = RunProgram({"ls", "-a", "/tmp"});
  for (const std::string& name : Lines(tmp.value_or("")))
    state.insert("tmp /tmp/" + name);
  // Instances are global to tracefs: any mount shows them all.
  char tracefs[] = "/tmp/ccreplay-lab-test-tracefs-XXXXXX";
  if (mkdtemp(tracefs) != nullptr &&
      mount("nodev", tracefs, "tracefs", 0, nullptr) == 0) {
    absl::StatusOr<std::string> instances =
        RunProgram({"ls", absl::StrCat(tracefs, "/instances")});
    for (const std::string& name : Lines(instances.value_or("")))
      state.insert("instance " + name);
    umount2(tracefs, MNT_DETACH);
  }
  rmdir(tracefs);
  std::set<std::string> owned;
  for (const std::string& entry : state) {
    if (ParseLabResourceOwner(LastComponent(entry.substr(entry.find(' ') + 1))))
      owned.insert(entry);
  }
  return owned;
}

std::optional<LabOwner> OwnerOf(const std::string& entry) {
  return ParseLabResourceOwner(
      LastComponent(entry.substr(entry.find(' ') + 1)));
}

std::set<std::string> OwnedBy(const std::set<std::string>& state, pid_t pid) {
  std::set<std::string> out;
  for (const std::string& entry : state) {
    if (OwnerOf(entry)->pid == pid) out.insert(entry);
  }
  return out;
}

// Children of `pid` (PPid in /proc/PID/status), zombies excluded.
std::set<pid_t> LiveChildren(pid_t parent) {
  std::set<pid_t> children;
  absl::StatusOr<std::string> ps =
      RunProgram({"ps", "-eo", "pid=,ppid=,stat="});
  for (const std::string& line : Lines(ps.value_or(""))) {
    std::vector<std::string> f =
        absl::StrSplit(line, ' ', absl::SkipWhitespace());
    pid_t pid = 0, ppid = 0;
    if (f.size() == 3 && absl::SimpleAtoi(f[0], &pid) &&
        absl::SimpleAtoi(f[1], &ppid) && ppid == parent && f[2][0] != 'Z') {
      children.insert(pid);
    }
  }
  return children;
}

bool ProcessLive(pid_t pid) {
  std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

// `ccreplay ARGS` in the background, output to files in `dir`.
pid_t StartCcreplay(const std::vector<std::string>& args,
                    const std::string& dir) {
  std::vector<std::string> argv = {kCcreplay};
  argv.insert(argv.end(), args.begin(), args.end());
  int out = open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  absl::StatusOr<pid_t> pid = SpawnProgram(argv, out, err);
  close(out);
  close(err);
  EXPECT_TRUE(pid.ok()) << pid.status();
  return pid.value_or(-1);
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Runs `ccreplay ARGS` to the end: its exit status, stdout, stderr.
struct Finished {
  int status;
  std::string out, err;
};
Finished RunCcreplay(const std::vector<std::string>& args,
                     const std::string& dir) {
  int status = WaitExit(StartCcreplay(args, dir));
  return {status, ReadFile(dir + "/stdout"), ReadFile(dir + "/stderr")};
}

template <typename Predicate>
bool WaitFor(Predicate ready, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (!ready()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

class LabReapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LabConfig probe;
    absl::Status ready = CheckLabPrerequisites(probe);
    if (!ready.ok()) GTEST_SKIP() << "lab unavailable: " << ready;
    if (access(kCcreplay.c_str(), X_OK) != 0)
      GTEST_SKIP() << kCcreplay << " not built";
    char dir[] = "/tmp/ccreplay-lab-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    // Leftovers of earlier runs are not this test's.
    RunCcreplay({"lab", "--cleanup"}, dir_);
    before_ = LabState();
  }
  void TearDown() override {
    if (!dir_.empty()) RunProgram({"rm", "-rf", dir_}).IgnoreError();
  }

  // Starts a 30 s lab (iperf3 when installed) and kill -9s it once its
  // transfer runs; checks what it left. Returns the killed pid.
  pid_t StartAndKillLab() {
    pid_t lab = StartCcreplay(
        {"lab", "--duration", "30s", "-o", dir_ + "/killed"}, dir_);
    // meta.json is written once the trace runs, before the captures.
    bool running = WaitFor(
        [&] {
          return access((dir_ + "/killed/sender.pcap").c_str(), F_OK) == 0 &&
                 (FindProgram("iperf3").empty() || !LiveChildren(lab).empty());
        },
        absl::Seconds(30));
    EXPECT_TRUE(running) << ReadFile(dir_ + "/stderr");
    children_ = LiveChildren(lab);
    EXPECT_EQ(kill(lab, SIGKILL), 0);
    WaitExit(lab);
    // What a SIGKILL leaves: 3 namespaces (each an nsfs mount on
    // /run/netns/NAME too), the tracefs instance, its mount, the mount point
    // and the scratch directory.
    std::map<std::string, int> kinds;
    for (const std::string& entry : OwnedBy(LabState(), lab))
      ++kinds[entry.substr(0, entry.find(' '))];
    EXPECT_EQ(kinds,
              (std::map<std::string, int>{
                  {"instance", 1}, {"mount", 4}, {"netns", 3}, {"tmp", 2}}));
    return lab;
  }

  // Nothing of `killed` remains, no child of it lives, and whatever lab
  // name is new since SetUp belongs to a live lab.
  void ExpectStateAsBefore(pid_t killed) {
    std::set<std::string> after = LabState();
    EXPECT_EQ(OwnedBy(after, killed), std::set<std::string>());
    for (const std::string& entry : after) {
      if (before_.count(entry) == 0) {
        EXPECT_TRUE(LabOwnerAlive(*OwnerOf(entry))) << entry;
      }
    }
    for (pid_t child : children_) EXPECT_FALSE(ProcessLive(child)) << child;
  }

  std::string dir_;
  std::set<std::string> before_;
  std::set<pid_t> children_;
};

TEST_F(LabReapTest, KillNineThenCleanupRestoresTheState) {
  pid_t lab = StartAndKillLab();
  // The children died with the lab (PR_SET_PDEATHSIG), before any cleanup.
  EXPECT_TRUE(WaitFor(
      [&] {
        for (pid_t child : children_)
          if (ProcessLive(child)) return false;
        return true;
      },
      absl::Seconds(2)));
  Finished cleanup = RunCcreplay({"lab", "--cleanup"}, dir_);
  ASSERT_TRUE(WIFEXITED(cleanup.status)) << cleanup.err;
  EXPECT_EQ(WEXITSTATUS(cleanup.status), 0) << cleanup.err;
  const std::string owner = absl::StrCat("ccrl-", lab, "-");
  for (const char* what : {"network namespace ", "tracefs instance ",
                           "mount /tmp/", "directory /tmp/"}) {
    EXPECT_TRUE(absl::StrContains(cleanup.out, absl::StrCat(what, owner)))
        << what << "\n"
        << cleanup.out;
  }
  ExpectStateAsBefore(lab);
  // The bundle it was writing says it is partial.
  absl::StatusOr<proto::BundleMeta> meta = ReadBundleMeta(dir_ + "/killed");
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_TRUE(meta->has_complete());
  EXPECT_FALSE(meta->complete());
}

TEST_F(LabReapTest, KillNineThenNextRunReaps) {
  pid_t lab = StartAndKillLab();
  Finished next = RunCcreplay({"lab", "--duration", "1s", "--transfer",
                               "builtin", "-o", dir_ + "/next"},
                              dir_);
  ASSERT_TRUE(WIFEXITED(next.status)) << next.err;
  EXPECT_EQ(WEXITSTATUS(next.status), 0) << next.err;
  EXPECT_TRUE(absl::StrContains(
      next.err, absl::StrCat("removed network namespace ccrl-", lab, "-")))
      << next.err;
  ExpectStateAsBefore(lab);
  absl::StatusOr<Bundle> bundle = ReadBundle(dir_ + "/next");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(bundle->meta.has_complete());
  EXPECT_TRUE(bundle->complete());
}

// SIGINT at many points of setup (namespaces, veths, qdiscs, tracefs): the
// handler alone, with no reaping afterwards, leaves nothing.
TEST_F(LabReapTest, SigintDuringSetupLeaksNothing) {
  for (int delay_ms : {1,  3,  6,  10,  15,  20,  25,  30,  40,  50,
                       60, 75, 90, 110, 130, 160, 200, 250, 300, 400}) {
    pid_t lab = StartCcreplay({"lab", "--duration", "5s", "--transfer",
                               "builtin", "-o", dir_ + "/int"},
                              dir_);
    absl::SleepFor(absl::Milliseconds(delay_ms));
    std::set<pid_t> children = LiveChildren(lab);
    kill(lab, SIGINT);
    int status = WaitExit(lab);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
        << delay_ms << " ms: " << ReadFile(dir_ + "/stderr");
    EXPECT_EQ(OwnedBy(LabState(), lab), std::set<std::string>())
        << delay_ms << " ms";
    for (pid_t child : children) {
      EXPECT_TRUE(
          WaitFor([&] { return !ProcessLive(child); }, absl::Seconds(2)))
          << delay_ms << " ms: child " << child;
    }
  }
}

TEST_F(LabReapTest, SigintMidTransferLeavesIncompleteBundleThatDiagnoseWarns) {
  const std::string bundle_dir = dir_ + "/cut";
  pid_t lab = StartCcreplay(
      {"lab", "--duration", "30s", "--transfer", "builtin", "-o", bundle_dir},
      dir_);
  const std::string pcap = bundle_dir + "/sender.pcap";
  // 300 kB of capture: a few hundred data packets.
  ASSERT_TRUE(WaitFor(
      [&] {
        struct stat info;
        return stat(pcap.c_str(), &info) == 0 && info.st_size > 300'000;
      },
      absl::Seconds(30)))
      << ReadFile(dir_ + "/stderr");
  kill(lab, SIGINT);
  int status = WaitExit(lab);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  EXPECT_EQ(OwnedBy(LabState(), lab), std::set<std::string>());
  absl::StatusOr<Bundle> bundle = ReadBundle(bundle_dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_FALSE(bundle->complete());
  EXPECT_TRUE(bundle->tcp_probe.empty());  // saved only at the end
  Finished diagnose =
      RunCcreplay({"diagnose", bundle_dir, "--json", "--nosimulate"}, dir_);
  ASSERT_TRUE(WIFEXITED(diagnose.status)) << diagnose.err;
  // The capture ends mid-record too: a partial result (exit 6) or, when
  // libpcap had flushed a whole record last, 0.
  EXPECT_TRUE(WEXITSTATUS(diagnose.status) == 0 ||
              WEXITSTATUS(diagnose.status) == 6)
      << diagnose.err;
  EXPECT_TRUE(absl::StrContains(diagnose.err,
                                "incomplete bundle (meta.json complete=false)"))
      << diagnose.err;
  // The report is of the flow the lab ran (meta.json's flow 0).
  ASSERT_EQ(bundle->meta.flows_size(), 1);
  EXPECT_TRUE(absl::StrContains(
      diagnose.out,
      absl::StrCat("\"sender\": \"", bundle->meta.flows(0).sender(), "\"")))
      << diagnose.out;
}

}  // namespace
}  // namespace ccreplay::lab
