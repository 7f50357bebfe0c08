package dev.berth.it;

import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.client.BerthClient;
import dev.berth.core.Hosts;
import dev.berth.daemon.BerthHome;
import dev.berth.daemon.DaemonTrust;
import dev.berth.daemon.EmbeddedCluster;
import dev.berth.mom.Isolation;
import dev.berth.mom.MomConfig;
import dev.berth.mom.NodeMetrics;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.cgroup.CgroupConfig;
import dev.berth.proto.Attribute;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.server.metrics.ServerMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real Berth cluster in the test JVM: the embedded server with its RocksDB journal under a fresh
 * home in /tmp, and one mom for this host that runs jobs through berth-starter. Commands run
 * in-process as root, or as real processes of other users through runuser.
 */
final class TestCluster implements AutoCloseable {
  static final Path ROOT =
      Path.of(System.getProperty("berth.root", "..")).toAbsolutePath().normalize();

  static {
    PyenvLockSweeper.start(); // every integration test class touches this class first
  }

  static final Path STARTER = ROOT.resolve("mom/target/native/berth-starter");
  static final String SERVER = "itsrv";

  final BerthHome home;
  final Path socket;
  final String node = Hosts.localName();
  private final EmbeddedCluster cluster;

  private TestCluster(BerthHome home, List<MomConfig> moms) throws IOException {
    this.home = home;
    this.socket = home.root().resolve("server.sock");
    JobFiles.prepareBase(home.jobTmp());
    for (MomConfig m : moms) {
      JobFiles.prepareBase(m.tmpBase());
    }
    CertificateAuthority.create(home.authority(), "it", Duration.ofDays(1), Clock.systemUTC());
    cluster =
        EmbeddedCluster.start(
            new EmbeddedCluster.Settings(
                home,
                socket,
                SERVER,
                Hosts.localName(),
                "127.0.0.1",
                0,
                List.of(),
                moms,
                node ->
                    Isolation.open(
                        CgroupConfig.of(cgroupRoot(home) + "/" + node),
                        NodeMetrics.unscraped(node)),
                dev.berth.daemon.JournalSpec.parse(dev.berth.daemon.JournalSpec.ROCKSDB),
                DaemonTrust.of(home, new Identity(Role.SERVER, Hosts.localName())),
                null,
                ServerMetrics.unscraped()));
  }

  /** Each test cluster keeps its job cgroups under a root of its own. */
  static String cgroupRoot(BerthHome home) {
    return "berth-it-" + home.root().getFileName();
  }

  /** A cluster with one mom for this host offering every online CPU. */
  static TestCluster start() throws IOException {
    return start(true);
  }

  /** A cluster with a mom ({@code withMom}) or only the server (jobs then stay queued). */
  static TestCluster start(boolean withMom) throws IOException {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "berth-it-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    BerthHome home = new BerthHome(dir);
    List<MomConfig> moms = new ArrayList<>();
    if (withMom) {
      String name = Hosts.localName();
      moms.add(
          new MomConfig(
              name,
              NodeFacts.linux().onlineCpus(),
              List.of(),
              home.mom(name),
              home.jobTmp().resolve(name),
              STARTER,
              Duration.ofSeconds(1),
              Duration.ofSeconds(1),
              "Berth-test",
              null,
              false,
              true, // the in-process commands submit as root
              dev.berth.mom.output.OutputRoutes.inPlace(),
              null,
              List.of(),
              null,
              dev.berth.mom.os.gpu.GpuMonitor.off(),
              null,
              dev.berth.mom.SiteScripts.NONE,
              null,
              NodeMetrics.unscraped(name)));
    }
    TestCluster c = new TestCluster(home, moms);
    allowRootJobs(c.socket);
    if (withMom) {
      c.awaitNodeUp();
    }
    return c;
  }

  /**
   * The in-process commands run as root, and jobs run as root only when acl_roots names the
   * submitter: the test clusters allow root@any host, as a site that wants root jobs would.
   */
  static void allowRootJobs(Path socket) {
    try (BerthClient client = BerthClient.connect(socket)) {
      Response r =
          client.call(
              Request.newBuilder()
                  .setManage(
                      Manage.newBuilder()
                          .setCommand(Manage.Command.SET)
                          .setObjectType(Manage.ObjectType.SERVER)
                          .addAttributes(
                              Attribute.newBuilder().setName("acl_roots").setValue("root"))));
      if (r.hasError()) {
        fail("set server acl_roots = root: " + r.getError().getMessage());
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void awaitNodeUp() {
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      Result r = cli("pbsnodes", "-a");
      if (r.exit() == 0 && r.out().contains("state = free")) {
        return;
      }
      sleep(100);
    }
    fail("the node did not come up: " + cli("pbsnodes", "-a"));
  }

  Map<String, String> env() {
    return clientEnv(socket);
  }

  /** What a root shell's environment would give the commands, pointed at {@code socket}. */
  static Map<String, String> clientEnv(Path socket) {
    Map<String, String> env = new HashMap<>();
    env.put("BERTH_SERVER", socket.toString());
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", "/root");
    env.put("LOGNAME", "root");
    env.put("SHELL", "/bin/bash");
    return env;
  }

  /** Runs a Berth command as root from {@code home}. */
  Result cli(String command, String... args) {
    return cliIn(home.root(), command, args);
  }

  Result cliIn(Path cwd, String command, String... args) {
    return cliWithInput(cwd, "", command, args);
  }

  Result cliWithInput(Path cwd, String stdin, String command, String... args) {
    return runCli(env(), cwd, stdin, command, args);
  }

  /**
   * Runs ops/bin/COMMAND as root with exactly the environment {@code env}: the native client, which
   * has the server run the command, as users run it (with {@code -Dberth.cli=java}, the Java
   * command in a JVM of its own, to compare).
   */
  static Result runCli(
      Map<String, String> env, Path cwd, String stdin, String command, String... args) {
    List<String> argv = new ArrayList<>();
    argv.add(ROOT.resolve("ops/bin").resolve(command).toString());
    argv.addAll(List.of(args));
    Map<String, String> environment = new HashMap<>(env);
    String cli = System.getProperty("berth.cli");
    if (cli != null && !cli.isBlank()) {
      environment.put("BERTH_CLI", cli);
    }
    return exec(cwd, argv, environment, stdin.getBytes(StandardCharsets.UTF_8));
  }

  /** Runs ops/bin/COMMAND as a real process of {@code user}, as that user would. */
  Result runAs(String user, Path cwd, String command, String... args) {
    return runAs(socket, user, cwd, new byte[0], command, args);
  }

  /**
   * {@code command} from ops/bin as {@code user} in {@code cwd}, with {@code stdin}, talking to the
   * server at {@code socket}.
   */
  static Result runAs(
      Path socket, String user, Path cwd, byte[] stdin, String command, String... args) {
    List<String> argv =
        new ArrayList<>(List.of("runuser", "-u", user, "--", "env", "BERTH_SERVER=" + socket));
    argv.add(ROOT.resolve("ops/bin").resolve(command).toString());
    argv.addAll(List.of(args));
    return exec(cwd, argv, null, stdin);
  }

  static Result exec(Path cwd, List<String> argv) {
    return exec(cwd, argv, null, new byte[0]);
  }

  /**
   * Runs {@code argv} in {@code cwd} with {@code env} (null: this JVM's) and {@code stdin} as its
   * standard input.
   */
  static Result exec(Path cwd, List<String> argv, Map<String, String> env, byte[] stdin) {
    try {
      ProcessBuilder builder = new ProcessBuilder(argv).directory(cwd.toFile());
      if (env != null) {
        builder.environment().clear();
        builder.environment().putAll(env);
      }
      Process p = builder.start();
      Thread feeder =
          new Thread(
              () -> {
                try (var in = p.getOutputStream()) {
                  in.write(stdin);
                } catch (IOException e) {
                  // the command did not read its input: nothing to give it
                }
              });
      feeder.start();
      var out = p.getInputStream();
      var err = p.getErrorStream();
      byte[][] captured = new byte[2][];
      Thread t = new Thread(() -> captured[1] = readAll(err));
      t.start();
      captured[0] = readAll(out);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("timed out: " + argv);
      }
      t.join();
      feeder.join();
      return new Result(
          p.exitValue(),
          new String(captured[0], StandardCharsets.UTF_8),
          new String(captured[1], StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static byte[] readAll(java.io.InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      return new byte[0];
    }
  }

  /** The job as the server has it now. */
  Job job(String id) {
    try (BerthClient client = BerthClient.connect(socket)) {
      Response r =
          client.call(Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(id)));
      if (r.hasError()) {
        fail("stat " + id + ": " + r.getError().getMessage());
      }
      return r.getJobs().getJobs(0);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every job the server holds (qstat's view as root). */
  List<Job> jobs() {
    try (BerthClient client = BerthClient.connect(socket)) {
      Response r = client.call(Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance()));
      if (r.hasError()) {
        fail("stat: " + r.getError().getMessage());
      }
      return r.getJobs().getJobsList();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the job satisfies {@code condition}, failing with the job's state if not. */
  Job await(String id, Predicate<Job> condition, Duration timeout) {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    Job last = null;
    while (System.currentTimeMillis() < deadline) {
      last = job(id);
      if (condition.test(last)) {
        return last;
      }
      sleep(100);
    }
    return fail("job " + id + " did not reach the expected state in " + timeout + ": " + last);
  }

  Job awaitState(String id, JobState state) {
    return await(id, j -> j.getState() == state, Duration.ofSeconds(60));
  }

  /** Submits a script from {@code cwd} as root; returns the job id qsub printed. */
  String submit(Path cwd, String script, String... args) throws IOException {
    Path file = cwd.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, script);
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add(file.toString());
    Result r = cliIn(cwd, "qsub", argv.toArray(String[]::new));
    if (r.exit() != 0) {
      fail("qsub failed: " + r);
    }
    return r.out().trim();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws IOException {
    cluster.close();
    JobFiles.removeTree(home.jobTmp());
    JobFiles.removeTree(home.root());
  }

  record Result(int exit, String out, String err) {}
}
