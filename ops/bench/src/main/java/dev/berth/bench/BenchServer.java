package dev.berth.bench;

import com.google.protobuf.ByteString;
import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Attribute;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatServer;
import dev.berth.proto.SubmitJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real server process ({@code ops/bin/berth serve}, no moms) in a scratch home, with one node
 * defined so submissions are feasible; nothing runs, so only the server is measured. Moms started
 * with the same home share its trust (see {@link Trust#prepare}).
 */
final class BenchServer implements AutoCloseable {
  final Path root;
  final Path home;
  final Path socket;
  final Trust trust;
  private final List<String> options = new java.util.ArrayList<>();
  private String javaOptions = "";
  private Process process;

  /**
   * A server with {@code options} added to {@code berth serve} (a journal, a cluster to join), its
   * daemons trusted as {@code trust} says.
   */
  BenchServer(Path root, Trust trust, String... options) throws IOException, InterruptedException {
    this(root, trust, Optional.empty(), options);
  }

  /** A server secured with a copy of the CA in {@code authority}, shared with other daemons. */
  static BenchServer sharing(Path root, Path authority, String... options)
      throws IOException, InterruptedException {
    return new BenchServer(root, Trust.TLS, Optional.of(authority), options);
  }

  private BenchServer(Path root, Trust trust, Optional<Path> authority, String... options)
      throws IOException, InterruptedException {
    this.root = root;
    this.home = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-");
    this.socket = home.resolve("server.sock");
    this.trust = trust;
    this.options.addAll(trust.options);
    this.options.addAll(List.of(options));
    try {
      trust.prepare(root, home, authority);
    } catch (IOException | InterruptedException | RuntimeException e) {
      deleteHome();
      throw e;
    }
  }

  /** JVM options for the next start, before those of the benchmark's own environment. */
  void javaOptions(String options) {
    this.javaOptions = options;
  }

  /** Starts the server; returns the milliseconds from exec to the first answered request. */
  long start() throws IOException, InterruptedException {
    long begin = System.nanoTime();
    launch();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited; see " + home.resolve("serve.log"));
      }
      if (answers()) {
        return (System.nanoTime() - begin) / 1_000_000;
      }
      Thread.sleep(10);
    }
  }

  /** Starts a standby server (options include --join) and waits until it is a cluster member. */
  void startStandby() throws IOException, InterruptedException {
    int from = log().length();
    launch();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!log().substring(from).contains("cluster member up")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the standby did not join; see " + home.resolve("serve.log"));
      }
      Thread.sleep(50);
    }
  }

  private void launch() throws IOException {
    List<String> argv =
        new java.util.ArrayList<>(
            List.of(
                root.resolve("ops/bin/berth").toString(),
                "serve",
                "--home",
                home.toString(),
                "--socket",
                socket.toString(),
                "--nodes",
                "0",
                "--server-name",
                "bench"));
    argv.addAll(options);
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("serve.log").toFile()));
    // RocksDB's native library is unpacked into the temp directory; keep it in the scratch home.
    // Options of the benchmark's own environment (a profiler, say) come after, as moms get them.
    String inherited = System.getenv().getOrDefault("BERTH_JAVA_OPTS", "");
    builder
        .environment()
        .put(
            "BERTH_JAVA_OPTS",
            ("-Djava.io.tmpdir=" + home + " " + javaOptions + " " + inherited).strip());
    process = builder.start();
  }

  /** The server's process id (ops/bin/berth execs the JVM). */
  long pid() {
    return process.pid();
  }

  String log() throws IOException {
    Path file = home.resolve("serve.log");
    return Files.exists(file) ? Files.readString(file) : "";
  }

  void acceptJobs() throws ServerUnavailableException {
    acceptJobs(socket);
  }

  /**
   * Readies the server at {@code socket} for the benchmarks' submissions: node n1 (np=64), so that
   * jobs may run, and root in acl_roots, since the benchmarks submit as the root user they run as.
   */
  static void acceptJobs(Path socket) throws ServerUnavailableException {
    try (BerthClient c = BerthClient.connect(socket)) {
      manage(
          c,
          Manage.newBuilder()
              .setCommand(Manage.Command.CREATE)
              .setObjectType(Manage.ObjectType.NODE)
              .addNames("n1")
              .addAttributes(Attribute.newBuilder().setName("np").setValue("64")));
      manage(
          c,
          Manage.newBuilder()
              .setCommand(Manage.Command.SET)
              .setObjectType(Manage.ObjectType.SERVER)
              .addAttributes(Attribute.newBuilder().setName("acl_roots").setValue("root")));
    }
  }

  static void manage(BerthClient c, Manage.Builder manage) throws ServerUnavailableException {
    Response r = c.call(Request.newBuilder().setManage(manage));
    if (r.hasError()) {
      throw new IllegalStateException(r.getError().getMessage());
    }
  }

  /** Whether it answers on its socket now. */
  boolean answers() {
    if (!Files.exists(socket)) {
      return false;
    }
    try (BerthClient c = BerthClient.connect(socket)) {
      return !c.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()))
          .hasError();
    } catch (ServerUnavailableException e) {
      return false;
    }
  }

  /** The server's own account of its last recovery, from its log. */
  String recoveryLine() throws IOException {
    List<String> lines = Files.readAllLines(home.resolve("serve.log"));
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).contains("recovered")) {
        return lines.get(i).replaceFirst(".*\\] ", "");
      }
    }
    return "(no recovery line)";
  }

  void stop() throws InterruptedException {
    process.destroy();
    process.waitFor(120, TimeUnit.SECONDS);
  }

  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  static Request.Builder submission(String name) {
    return Request.newBuilder()
        .setSubmit(
            SubmitJob.newBuilder()
                .addAttributes(Attribute.newBuilder().setName("Job_Name").setValue(name))
                .addAttributes(
                    Attribute.newBuilder()
                        .setName("Resource_List")
                        .setResource("walltime")
                        .setValue("01:00:00"))
                .addAttributes(
                    Attribute.newBuilder().setName("Variable_List").setValue("PBS_O_WORKDIR=/tmp"))
                .addAttributes(
                    Attribute.newBuilder().setName("Variable_List").setValue("PBS_O_HOST=bench"))
                .setScript(ByteString.copyFromUtf8("#!/bin/sh\n#PBS -N bench\ntrue\n")));
  }

  @Override
  public void close() throws Exception {
    if (process != null && process.isAlive()) {
      kill();
    }
    deleteHome();
  }

  private void deleteHome() throws IOException {
    deleteTree(home);
  }

  /** Removes {@code dir} and everything in it, as far as this process may. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
