package dev.berth.bench;

import com.google.protobuf.ByteString;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.JoinJob;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.proto.Variable;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.security.seal.Seal;
import dev.berth.security.seal.SignedSeal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What sealing node messages costs by itself, in one JVM and one thread: the server's RunJob to a
 * mother superior, and the mother superior's JoinJob to a sister, which carries that RunJob as its
 * grant, so the sister opens two seals. Signed with Ed25519 credentials of a fresh CA, against
 * {@code --insecure}'s unsigned letters. A timed loop rather than JMH: the cost is tens of
 * microseconds, far above what a loop's overhead can distort, and the JIT is warmed first.
 */
final class SealBench {
  /**
   * Letters timed before the warm-up: a daemon seals and opens a few letters a second, so its
   * signature code stays far from the JIT's hot thresholds for a long time. This JVM has signed
   * once per credential before (Credential.load checks the key), so the first row is the coldest.
   */
  private static final int FIRST = 200;

  private static final int WARMUP = 10_000;
  private static final int BATCH = 2_000;
  private static final int BATCHES = 9;

  /** How a receiver opens one kind of letter. */
  private interface Opener {
    void open(Seal receiver, Sealed letter) throws NotTrustedException;
  }

  /**
   * Microseconds per letter, sealed and opened: the mean of the first {@link #FIRST}, then, once
   * warm, medians over the batches and the fastest batch, which is what a letter costs when no
   * other process takes the CPU meanwhile.
   */
  private record Cost(double first, double seal, double open, double best, int bytes) {}

  private SealBench() {}

  static void run() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-seal-");
    try {
      Clock clock = Clock.systemUTC();
      CertificateAuthority ca =
          CertificateAuthority.create(dir.resolve("ca"), "berth bench", Duration.ofDays(1), clock);
      Identity server = new Identity(Role.SERVER, "head");
      Identity n1 = new Identity(Role.MOM, "n1");
      Identity n2 = new Identity(Role.MOM, "n2");
      Seal signedServer = new SignedSeal(issue(ca, server, dir), clock);
      Seal signedN1 = new SignedSeal(issue(ca, n1, dir), clock);
      Seal signedN2 = new SignedSeal(issue(ca, n2, dir), clock);
      Job job = typicalJob();
      Letter.Builder runJob = runJob(job);
      Opener runJobOpener = Seal::open;
      Opener joinJobOpener =
          (receiver, letter) ->
              receiver.openHandedOn(receiver.open(letter).letter().getToMom().getJoin().getGrant());

      System.out.printf(
          "%nsealing a node message by itself (one thread, Ed25519 from a fresh CA; %d batches of"
              + " %d)%n",
          BATCHES, BATCH);
      System.out.println(
          "                                                 first "
              + FIRST
              + "      warm: median of the batches  fastest");
      System.out.println(
          "letter                         seal        bytes   both µs   seal µs   open µs   both µs"
              + "  both µs");
      Cost runSigned = time(signedServer, signedN1, runJob, runJobOpener);
      Cost runInsecure =
          time(new InsecureSeal(server, clock), new InsecureSeal(n1, clock), runJob, runJobOpener);
      print("RunJob server -> MS", "signed", runSigned);
      print("RunJob server -> MS", "insecure", runInsecure);
      // The sister checks the server's seal on the grant as well as the mother superior's.
      Cost joinSigned =
          time(signedN1, signedN2, joinJob(job, signedServer.seal(runJob.clone())), joinJobOpener);
      Cost joinInsecure =
          time(
              new InsecureSeal(n1, clock),
              new InsecureSeal(n2, clock),
              joinJob(job, new InsecureSeal(server, clock).seal(runJob.clone())),
              joinJobOpener);
      print("JoinJob + grant MS -> sister", "signed", joinSigned);
      print("JoinJob + grant MS -> sister", "insecure", joinInsecure);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static Credential issue(CertificateAuthority ca, Identity identity, Path dir)
      throws java.io.IOException {
    return ca.issue(identity, List.of(), Duration.ofDays(1), dir.resolve(identity.name()));
  }

  private static void print(String letter, String seal, Cost c) {
    System.out.printf(
        "%-30s %-10s %7d %9.1f %9.1f %9.1f %9.1f %8.1f%n",
        letter, seal, c.bytes(), c.first(), c.seal(), c.open(), c.seal() + c.open(), c.best());
  }

  private static Cost time(Seal sender, Seal receiver, Letter.Builder letter, Opener opener)
      throws NotTrustedException {
    Sealed[] letters = new Sealed[BATCH];
    long cold = System.nanoTime();
    for (int i = 0; i < FIRST; i++) {
      opener.open(receiver, sender.seal(letter.clone()));
    }
    double first = (System.nanoTime() - cold) / 1e3 / FIRST;
    for (int i = 0; i < WARMUP; i++) {
      opener.open(receiver, sender.seal(letter.clone()));
    }
    double[] seal = new double[BATCHES];
    double[] open = new double[BATCHES];
    double best = Double.MAX_VALUE;
    for (int b = 0; b < BATCHES; b++) {
      long begin = System.nanoTime();
      for (int i = 0; i < BATCH; i++) {
        letters[i] = sender.seal(letter.clone());
      }
      long sealedAt = System.nanoTime();
      for (int i = 0; i < BATCH; i++) {
        opener.open(receiver, letters[i]);
      }
      long openedAt = System.nanoTime();
      seal[b] = (sealedAt - begin) / 1e3 / BATCH;
      open[b] = (openedAt - sealedAt) / 1e3 / BATCH;
      best = Math.min(best, seal[b] + open[b]);
    }
    Arrays.sort(seal);
    Arrays.sort(open);
    return new Cost(
        first, seal[BATCHES / 2], open[BATCHES / 2], best, letters[0].getSerializedSize());
  }

  private static Letter.Builder runJob(Job job) {
    return Letter.newBuilder()
        .setTo("n1")
        .setReplyTo("pekko://berth@10.1.0.1:25520/system/adapter$b#1436278095")
        .setToMom(
            MomInbound.newBuilder()
                .setRun(
                    RunJob.newBuilder()
                        .setJob(job)
                        .setScript(
                            ByteString.copyFromUtf8(
                                "#!/bin/bash\n#PBS -N train\n#PBS -l nodes=2:ppn=1\n"
                                    + "#PBS -l walltime=01:00:00\n#PBS -j oe\n"
                                    + "cd $PBS_O_WORKDIR\nmodule load openmpi\n"
                                    + "mpirun ./train --epochs 10 --data /lustre/data\n"))
                        .setKillDelay(2)));
  }

  private static Letter.Builder joinJob(Job job, Sealed grant) {
    return Letter.newBuilder()
        .setTo("n2")
        .setReplyTo("pekko://berth@10.1.0.11:25520/system/adapter$c#20391823")
        .setToMom(
            MomInbound.newBuilder()
                .setJoin(
                    JoinJob.newBuilder()
                        .setJob(job)
                        .setMotherSuperior("n1")
                        .setKillDelay(2)
                        .setGrant(grant)));
  }

  /** A two-node job as qsub makes one: its PBS_O_ variables, resources, and placement. */
  private static Job typicalJob() {
    Job.Builder job =
        Job.newBuilder()
            .setId("1234.head")
            .setNumber(1234)
            .setName("train")
            .setOwner("alice@login1")
            .setEuser("alice")
            .setEgroup("alice")
            .setState(JobState.RUNNING)
            .setQueue("batch")
            .setServer("head")
            .setCtime(1_790_000_000L)
            .setQtime(1_790_000_000L)
            .setMtime(1_790_000_001L)
            .setEtime(1_790_000_000L)
            .setStartTime(1_790_000_001L)
            .setResources(
                ResourceRequest.newBuilder()
                    .putValues("nodes", "2:ppn=1")
                    .putValues("walltime", "01:00:00")
                    .addNodeGroups(NodeGroup.newBuilder().setCount(2).setPpn(1))
                    .setWalltime(3600))
            .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(3))
            .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addCpus(0))
            .setOutputPath("login1:/home/alice/run/train.o1234")
            .setErrorPath("login1:/home/alice/run/train.e1234")
            .setJoinPath("oe")
            .setKeepFiles("n")
            .setRerunnable(true)
            .setWorkDir("/home/alice/run")
            .setSubmitArgs("train.pbs")
            .setSubmitHost("login1")
            .setCgroupEnable(true)
            .setSubmissionId("8f14e45fceea167a5a36dedd4bea2543");
    String[][] variables = {
      {"PBS_O_HOME", "/home/alice"},
      {"PBS_O_LANG", "C.UTF-8"},
      {"PBS_O_LOGNAME", "alice"},
      {"PBS_O_PATH", "/usr/local/bin:/usr/bin:/bin:/home/alice/.local/bin"},
      {"PBS_O_MAIL", "/var/mail/alice"},
      {"PBS_O_SHELL", "/bin/bash"},
      {"PBS_O_TZ", "Europe/Berlin"},
      {"PBS_O_HOST", "login1"},
      {"PBS_O_WORKDIR", "/home/alice/run"},
      {"PBS_O_QUEUE", "batch"},
      {"PBS_O_SERVER", "head"},
    };
    for (String[] v : variables) {
      job.addVariables(Variable.newBuilder().setName(v[0]).setValue(v[1]));
    }
    return job.build();
  }
}
