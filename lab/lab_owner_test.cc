#include "lab/lab_owner.h"

#include <sys/wait.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

TEST(LabOwnerTest, NameCarriesPidAndStartTime) {
  const LabOwner owner{4242, 0x8f3a1};
  EXPECT_EQ(LabResourceName(owner, "03c1", "snd"), "ccrl-4242-8f3a1-03c1-snd");
  std::optional<LabOwner> parsed =
      ParseLabResourceOwner("ccrl-4242-8f3a1-03c1-tracefs-Q1w2E3");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, owner);
}

TEST(LabOwnerTest, OtherNamesAreNotLabResources) {
  for (const char* name :
       {"ccl-03c1-snd", "ccrl-", "ccrl-4242-8f3a1-03c1", "ccrl-x-8f3a1-03c1-a",
        "ccrl-4242-zz-03c1-snd", "ccrl-0-1-03c1-snd", "ccreplay-lab-03c1",
        "netns1"}) {
    EXPECT_FALSE(ParseLabResourceOwner(name).has_value()) << name;
  }
}

TEST(LabOwnerTest, SelfIsAliveAndAReusedPidIsNot) {
  const LabOwner self = SelfOwner();
  EXPECT_EQ(self.pid, getpid());
  EXPECT_GT(self.start_ticks, 0u);
  EXPECT_TRUE(LabOwnerAlive(self));
  // The same pid with another start time is a later process.
  EXPECT_FALSE(LabOwnerAlive(LabOwner{self.pid, self.start_ticks + 1}));
}

TEST(LabOwnerTest, ZombieAndReapedChildAreGone) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Say who we are, then die.
    LabOwner me = SelfOwner();
    if (write(ready[1], &me, sizeof(me)) != sizeof(me)) _exit(1);
    _exit(0);
  }
  close(ready[1]);
  LabOwner owner;
  ASSERT_EQ(read(ready[0], &owner, sizeof(owner)),
            static_cast<ssize_t>(sizeof(owner)));
  close(ready[0]);
  EXPECT_EQ(owner.pid, child);
  // Dead but not reaped yet: a zombie, not a live owner.
  siginfo_t info;
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(LabOwnerAlive(owner));
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(LabOwnerAlive(owner));
}

}  // namespace
}  // namespace ccreplay::lab
