package dev.berth.mom.lifecycle;

import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import dev.berth.mom.Isolation;
import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.NodeMetrics;
import dev.berth.mom.SiteScripts;
import dev.berth.mom.os.FakeLauncher;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.os.Users;
import dev.berth.mom.os.cgroup.FakeCgroupDriver;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

/**
 * One node for a job's actor under test: the OS behind fakes (launcher, cgroups, users), the job
 * records real in a temporary directory, the mom a probe, and time manual, the clock's and the
 * timers' together, so that a test of minutes runs in milliseconds. Reads what the job's actor
 * tells its mom, in order, keeping what a test has not asked for yet.
 */
public final class FakeNode {
  public static final String JOB = "1.test";
  public static final String HERE = "n1";
  public static final Duration WAIT = Duration.ofSeconds(5);

  public final Path dir;
  public final TestClock clock = new TestClock();
  public final FakeLauncher launcher = new FakeLauncher(clock);
  public final FakeCgroupDriver cgroups;
  public final JobRecords records;
  public final MomConfig config;
  public final TestProbe<MomActor.Command> mom;
  public final JobServices services;
  private final ManualTime time;
  private final List<MomActor.Command> unread = new ArrayList<>();

  public FakeNode(ActorTestKit kit, Path dir) {
    this(kit, dir, SiteScripts.NONE);
  }

  /** A node whose site runs {@code site}'s prologues, epilogues and health check. */
  public FakeNode(ActorTestKit kit, Path dir, SiteScripts site) {
    this.dir = dir;
    this.time = ManualTime.get(kit.system());
    this.cgroups = new FakeCgroupDriver(dir.resolve("cgroup"));
    this.records = new JobRecords(dir.resolve("records"));
    try {
      Files.createDirectories(dir.resolve("tmp"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    MomConfig plain =
        new MomConfig(
            HERE,
            List.of(0, 1),
            List.of(),
            dir,
            dir.resolve("tmp"),
            dir.resolve("berth-starter"),
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            "test");
    this.config =
        new MomConfig(
            plain.name(),
            plain.cpus(),
            plain.properties(),
            plain.home(),
            plain.tmpBase(),
            plain.starter(),
            plain.heartbeat(),
            plain.resend(),
            plain.version(),
            plain.tools(),
            plain.nodeHostname(),
            plain.rootJobs(),
            plain.output(),
            plain.courier(),
            plain.gpus(),
            plain.containers(),
            plain.gpuMonitor(),
            plain.sessionJobIdFile(),
            site,
            plain.terminal(),
            plain.metrics());
    this.mom = kit.createTestProbe(MomActor.Command.class);
    this.services =
        new JobServices(
            config,
            launcher,
            new OneUser(dir),
            records,
            Isolation.over(cgroups, NodeMetrics.unscraped(HERE)),
            mom.ref(),
            null,
            clock);
  }

  /** A batch job of alice's on this node and {@code sisters}, in a cgroup. */
  public Job.Builder job(String... sisters) {
    Job.Builder job =
        Job.newBuilder()
            .setId(JOB)
            .setNumber(1)
            .setName("t")
            .setEuser(OneUser.NAME)
            .setQueue("batch")
            .setServer("test")
            .setShell("/bin/sh")
            .setInitWorkDir(dir.toString())
            .setOutputPath(HERE + ":" + dir.resolve("t.o1"))
            .setErrorPath(HERE + ":" + dir.resolve("t.e1"))
            .setCgroupEnable(true)
            .addExecNodes(NodeAllocation.newBuilder().setNode(HERE).addCpus(0));
    for (String sister : sisters) {
      job.addExecNodes(NodeAllocation.newBuilder().setNode(sister).addCpus(0));
    }
    return job;
  }

  /** The same job with {@code motherSuperior} first, this node its sister. */
  public Job sisterJob(String motherSuperior) {
    Job.Builder job = job();
    NodeAllocation here = job.getExecNodes(0);
    return job.clearExecNodes()
        .addExecNodes(NodeAllocation.newBuilder().setNode(motherSuperior).addCpus(0))
        .addExecNodes(here)
        .build();
  }

  public static RunJob run(Job.Builder job) {
    return RunJob.newBuilder()
        .setJob(job)
        .setScript(ByteString.copyFromUtf8("true\n"))
        .setKillDelay(5)
        .build();
  }

  /** The job's stderr file, where notices to its owner go. */
  public Path stderr() {
    return dir.resolve("t.e1");
  }

  /** The starter's status file of the job's script. */
  public Path statusFile() {
    return records.statusFile(JOB);
  }

  /**
   * The clock and the timers move on together. The job's actors start a timer before the effect it
   * follows (a message sent, a signal, a suspension answered), so a test that has seen the effect
   * knows the timer runs; a message the test tells an actor is handled before the timers that fire
   * now, which come after it in the actor's mailbox.
   */
  public void passes(Duration d) {
    clock.advance(d);
    time.timePasses(d);
  }

  /** The first start {@code match} takes, once it has happened. */
  public FakeLauncher.Started started(Predicate<FakeLauncher.Started> match) {
    long end = System.nanoTime() + WAIT.toNanos();
    while (true) {
      Optional<FakeLauncher.Started> found = launcher.starts().stream().filter(match).findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      if (System.nanoTime() > end) {
        return fail("no such start; there were " + launcher.starts());
      }
      pause();
    }
  }

  /** The site's script {@code name} once it has started. */
  public FakeLauncher.Started siteScript(String name) {
    return started(s -> s.spec().command().get(0).endsWith("/" + name));
  }

  /** Whether the job's script has started (its starter is given the script itself). */
  public static boolean jobScript(FakeLauncher.Started s) {
    return s.spec().script() != null;
  }

  private static void pause() {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted");
    }
  }

  /** Waits until the session {@code pid} has had exactly {@code signals}, in order. */
  public void signalled(long pid, Integer... signals) {
    List<Integer> want = List.of(signals);
    long end = System.nanoTime() + WAIT.toNanos();
    while (!launcher.signalsTo(pid).equals(want)) {
      if (System.nanoTime() > end) {
        fail("session " + pid + " had signals " + launcher.signalsTo(pid) + ", not " + want);
      }
      pause();
    }
  }

  /** The next message to the server that {@code match} takes, skipping (and keeping) others. */
  public ServerInbound toServer(Predicate<ServerInbound> match) {
    return await(MomActor.ToServer.class, m -> match.test(m.message())).message();
  }

  public JobObitReport obit() {
    return toServer(ServerInbound::hasObit).getObit();
  }

  /** The next message to sister {@code node} that {@code match} takes. */
  public MomInbound toPeer(String node, Predicate<MomInbound> match) {
    return await(MomActor.ToPeer.class, m -> m.node().equals(node) && match.test(m.message()))
        .message();
  }

  /** Waits for the job's actor to tell its mom the job is gone. */
  public void gone() {
    await(MomActor.JobGone.class, g -> g.jobId().equals(JOB));
  }

  /** The messages of {@code type} that {@code match} takes which the mom got within {@code d}. */
  public <T extends MomActor.Command> List<T> within(
      Duration d, Class<T> type, Predicate<? super T> match) {
    long end = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < end) {
      try {
        unread.add(mom.receiveMessage(Duration.ofNanos(Math.max(1, end - System.nanoTime()))));
      } catch (AssertionError timedOut) {
        break;
      }
    }
    List<T> found = new ArrayList<>();
    for (Iterator<MomActor.Command> it = unread.iterator(); it.hasNext(); ) {
      MomActor.Command m = it.next();
      if (type.isInstance(m) && match.test(type.cast(m))) {
        found.add(type.cast(m));
        it.remove();
      }
    }
    return found;
  }

  /** The reports to the server that {@code match} takes which came within a short while. */
  public List<ServerInbound> toServerSoon(Predicate<ServerInbound> match) {
    return within(Duration.ofMillis(200), MomActor.ToServer.class, m -> match.test(m.message()))
        .stream()
        .map(MomActor.ToServer::message)
        .toList();
  }

  /** The next message of {@code type} to the mom that {@code match} takes. */
  public <T extends MomActor.Command> T await(Class<T> type, Predicate<? super T> match) {
    for (Iterator<MomActor.Command> it = unread.iterator(); it.hasNext(); ) {
      MomActor.Command m = it.next();
      if (type.isInstance(m) && match.test(type.cast(m))) {
        it.remove();
        return type.cast(m);
      }
    }
    long end = System.nanoTime() + WAIT.toNanos();
    while (true) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return fail("no " + type.getSimpleName() + " as expected; the mom had " + unread);
      }
      MomActor.Command m;
      try {
        m = mom.receiveMessage(Duration.ofNanos(left));
      } catch (AssertionError timedOut) {
        return fail("no " + type.getSimpleName() + " as expected; the mom had " + unread);
      }
      if (type.isInstance(m) && match.test(type.cast(m))) {
        return type.cast(m);
      }
      unread.add(m);
    }
  }

  /** A clock the test moves. */
  public static final class TestClock extends Clock {
    private final AtomicLong millis = new AtomicLong(1_800_000_000_000L);

    void advance(Duration d) {
      millis.addAndGet(d.toMillis());
    }

    @Override
    public long millis() {
      return millis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /** A node whose mom runs as alice, its one user, so that nothing needs root. */
  private record OneUser(Path home) implements Users {
    static final String NAME = "alice";

    @Override
    public Optional<UserInfo> user(String name) {
      return name.equals(NAME)
          ? Optional.of(new UserInfo(NAME, 1000, 1000, home.toString(), "/bin/sh", List.of()))
          : Optional.empty();
    }

    @Override
    public Optional<Integer> groupId(String group) {
      return Optional.empty();
    }

    @Override
    public String self() {
      return NAME;
    }
  }
}
