package dev.berth.mom.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JoinJob;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.MomOrder;
import dev.berth.proto.RunJob;
import dev.berth.proto.SignalTask;
import dev.berth.proto.SisterUsage;
import dev.berth.proto.SpawnTask;
import dev.berth.proto.SuspendJob;
import dev.berth.proto.TaskObit;
import dev.berth.proto.TaskOutput;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Who may send what to node n2, which is a sister of job 1.s (mother superior n1) and the mother
 * superior of job 2.s (nodes n2, n3), and reports to the server "head".
 */
class SenderRulesTest {
  static final Identity SERVER = new Identity(Role.SERVER, "head");
  static final Identity OTHER_SERVER = new Identity(Role.SERVER, "rogue-head");
  static final Identity N1 = new Identity(Role.MOM, "n1");
  static final Identity N3 = new Identity(Role.MOM, "n3");
  static final Identity N4 = new Identity(Role.MOM, "n4");

  static final SenderRules.Knowledge KNOWS =
      new SenderRules.Knowledge() {
        @Override
        public Optional<Identity> server() {
          return Optional.of(SERVER);
        }

        @Override
        public Optional<String> motherSuperiorOf(String jobId) {
          return Optional.ofNullable(Map.of("1.s", "n1").get(jobId));
        }

        @Override
        public Set<String> nodesOf(String jobId) {
          return Map.of("2.s", Set.of("n2", "n3")).getOrDefault(jobId, Set.of());
        }
      };

  static boolean allowed(Identity from, MomInbound.Builder m) {
    return SenderRules.refusal(from, m.build(), KNOWS).isEmpty();
  }

  static MomInbound.Builder run() {
    return MomInbound.newBuilder()
        .setRun(RunJob.newBuilder().setJob(Job.newBuilder().setId("3.s")));
  }

  @Test
  void onlyTheFollowedServerRunsKillsAndSignals() {
    assertTrue(allowed(SERVER, run()));
    assertEquals(false, allowed(OTHER_SERVER, run()));
    assertEquals(false, allowed(N1, run()), "a mom is no server");
    assertTrue(
        allowed(SERVER, MomInbound.newBuilder().setKill(KillJob.newBuilder().setJobId("2.s"))));
    assertEquals(
        false, allowed(N1, MomInbound.newBuilder().setKill(KillJob.newBuilder().setJobId("2.s"))));
  }

  @Test
  void onlyTheFollowedServerOrdersAMomToReportOrStop() {
    for (MomOrder.Action action : List.of(MomOrder.Action.REPORT, MomOrder.Action.SHUTDOWN)) {
      MomInbound.Builder m =
          MomInbound.newBuilder().setOrder(MomOrder.newBuilder().setAction(action));
      assertTrue(allowed(SERVER, m));
      assertEquals(false, allowed(OTHER_SERVER, m), "another cluster's server");
      assertEquals(false, allowed(N1, m), "a mom, even a job's mother superior");
    }
  }

  @Test
  void onlyTheFollowedServerSuspendsOrResumes() {
    for (boolean suspend : new boolean[] {true, false}) {
      for (String job : new String[] {"1.s", "2.s"}) {
        MomInbound.Builder m =
            MomInbound.newBuilder()
                .setSuspend(SuspendJob.newBuilder().setJobId(job).setSuspend(suspend));
        assertTrue(allowed(SERVER, m));
        assertEquals(false, allowed(OTHER_SERVER, m), "not the server this mom follows");
        assertEquals(false, allowed(N1, m), "not even the mother superior of 1.s");
        assertEquals(false, allowed(N3, m), "not even a sister of 2.s");
        for (Role role : new Role[] {Role.MOM, Role.BROKER, Role.SUBMIT}) {
          assertEquals(false, allowed(new Identity(role, "head"), m), role + " named like it");
        }
      }
    }
  }

  @Test
  void noServerIsFollowedBeforeOneHasProvenItself() {
    SenderRules.Knowledge none =
        new SenderRules.Knowledge() {
          @Override
          public Optional<Identity> server() {
            return Optional.empty();
          }

          @Override
          public Optional<String> motherSuperiorOf(String jobId) {
            return Optional.empty();
          }

          @Override
          public Set<String> nodesOf(String jobId) {
            return Set.of();
          }
        };
    assertTrue(SenderRules.refusal(SERVER, run().build(), none).get().contains("none yet"));
  }

  @Test
  void onlyTheMotherSuperiorKillsASistersPartOrSpawnsThere() {
    KillJob.Builder kill = KillJob.newBuilder().setJobId("1.s");
    assertTrue(allowed(N1, MomInbound.newBuilder().setKill(kill.setFrom("n1"))));
    assertEquals(false, allowed(N3, MomInbound.newBuilder().setKill(kill.setFrom("n3"))));
    assertEquals(
        false,
        allowed(N3, MomInbound.newBuilder().setKill(kill.setFrom("n1"))),
        "a mom cannot name another node as the sender");
    SpawnTask.Builder spawn = SpawnTask.newBuilder().setJobId("1.s").setFrom("n1");
    assertTrue(allowed(N1, MomInbound.newBuilder().setSpawn(spawn)));
    assertEquals(false, allowed(N3, MomInbound.newBuilder().setSpawn(spawn.setFrom("n3"))));
    assertEquals(false, allowed(SERVER, MomInbound.newBuilder().setSpawn(spawn.setFrom("head"))));
    assertEquals(
        false,
        allowed(
            N3, MomInbound.newBuilder().setSignalTask(SignalTask.newBuilder().setJobId("1.s"))));
    assertTrue(
        allowed(
            N1, MomInbound.newBuilder().setSignalTask(SignalTask.newBuilder().setJobId("1.s"))));
  }

  @Test
  void aSpawnForAJobNotHereIsLetThroughFromTheNodeItNamesSoItHearsWhy() {
    assertTrue(
        allowed(
            N4,
            MomInbound.newBuilder()
                .setSpawn(SpawnTask.newBuilder().setJobId("9.s").setFrom("n4"))));
    assertEquals(
        false,
        allowed(
            N4, MomInbound.newBuilder().setSignalTask(SignalTask.newBuilder().setJobId("9.s"))));
  }

  @Test
  void aSisterReportsOnlyAboutItselfAndOnlyForItsJobs() {
    assertTrue(
        allowed(
            N3,
            MomInbound.newBuilder()
                .setJoinReply(JoinJobReply.newBuilder().setJobId("2.s").setNode("n3"))));
    assertEquals(
        false,
        allowed(
            N3,
            MomInbound.newBuilder()
                .setTaskObit(TaskObit.newBuilder().setJobId("2.s").setNode("n2"))),
        "not about another node");
    assertEquals(
        false,
        allowed(
            N4,
            MomInbound.newBuilder()
                .setTaskOutput(TaskOutput.newBuilder().setJobId("2.s").setNode("n4"))),
        "not a node of the job");
    assertEquals(
        false,
        allowed(
            N1,
            MomInbound.newBuilder()
                .setJoinReply(JoinJobReply.newBuilder().setJobId("1.s").setNode("n1"))),
        "this node is no mother superior of 1.s");
    assertTrue(
        allowed(
            N3,
            MomInbound.newBuilder()
                .setSisterUsage(SisterUsage.newBuilder().setJobId("2.s").setNode("n3"))));
    assertEquals(
        false,
        allowed(
            N3,
            MomInbound.newBuilder()
                .setSisterUsage(SisterUsage.newBuilder().setJobId("2.s").setNode("n2"))),
        "no usage in another node's name");
    assertEquals(
        false,
        allowed(
            N4,
            MomInbound.newBuilder()
                .setSisterUsage(SisterUsage.newBuilder().setJobId("2.s").setNode("n4"))),
        "no usage for a job the node has no part in");
  }

  @Test
  void aJoinComesFromTheNodeItNamesAndNeverForAJobThisNodeRuns() {
    JoinJob.Builder join =
        JoinJob.newBuilder().setJob(Job.newBuilder().setId("5.s")).setMotherSuperior("n3");
    assertTrue(allowed(N3, MomInbound.newBuilder().setJoin(join)));
    assertEquals(false, allowed(N4, MomInbound.newBuilder().setJoin(join)));
    assertEquals(
        false,
        allowed(N3, MomInbound.newBuilder().setJoin(join.setJob(Job.newBuilder().setId("2.s")))));
  }

  @Test
  void anEmptyMessageIsRefused() {
    assertTrue(SenderRules.refusal(SERVER, MomInbound.getDefaultInstance(), KNOWS).isPresent());
  }
}
