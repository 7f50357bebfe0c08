package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.client.BerthClient;
import dev.berth.proto.CommandReply;
import dev.berth.proto.LocalFile;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.proto.StatServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The native commands (berth-cmd, which has the server run the Java command) against the Java
 * commands run as processes, as an ordinary user: the same output byte for byte, the same exit
 * status, for reading commands, refusals and submissions alike. Next to them the attacks on the new
 * surface: the server never reads a file for the caller, identity is the kernel's whatever the
 * request says, and a malformed command is refused with a message.
 */
@Tag("integration")
class NativeCommandsIT {
  static TestCluster cluster;
  static Path work;
  static String held;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start(false); // no mom: jobs stay queued, so outputs do not move
    assertEquals(0, cluster.cli("qmgr", "-c", "create node n1 np=4").exit());
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-native-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    write("job.sh", "#PBS -N native\n#PBS -l walltime=10:00,nodes=1:ppn=2\n#PBS -m n\necho hi\n");
    write("prefixed.sh", "#X -N prefixed\n#PBS -N ignored\ntrue\n");
    write("directives.txt", "list server\nlist queue batch\nlst server\n");
    Files.createDirectory(work.resolve("adir"));
    Path secret = write("secret.sh", "#PBS -N secret\necho bob's secret\n");
    TestCluster.exec(work, List.of("chown", BOB, secret.toString()));
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    TestCluster.Result r = as(ALICE, "", Map.of(), false, "qsub", "-h", "job.sh");
    assertEquals(0, r.exit(), r.toString());
    held = r.out().strip();
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    TestCluster.exec(Path.of("/"), List.of("rm", "-rf", work.toString()));
  }

  private static Path write(String name, String text) throws IOException {
    Path file = work.resolve(name);
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    return file;
  }

  /**
   * {@code ops/bin/COMMAND ARGS} as {@code user} in the work directory, with a login shell's
   * environment plus {@code extra}: the native client, or with {@code java} the Java command.
   */
  private static TestCluster.Result as(
      String user,
      String stdin,
      Map<String, String> extra,
      boolean java,
      String command,
      String... args) {
    List<String> argv = new ArrayList<>(TestUsers.loginEnv(user));
    argv.addAll(List.of("LANG=C.UTF-8", "BERTH_SERVER=" + cluster.socket));
    extra.forEach((k, v) -> argv.add(k + "=" + v));
    Path bin = TestCluster.ROOT.resolve("ops/bin");
    if (java) { // berth-java by name, not BERTH_CLI=java, which qsub -V would pass on
      argv.addAll(List.of(bin.resolve("berth-java").toString(), command));
    } else {
      argv.add(bin.resolve(command).toString());
    }
    argv.addAll(List.of(args));
    return TestCluster.exec(work, argv, null, stdin.getBytes(StandardCharsets.UTF_8));
  }

  /** Runs the command both ways and asserts they agree; returns what the native one did. */
  private static TestCluster.Result same(
      String stdin, Map<String, String> extra, String command, String... args) {
    TestCluster.Result java = as(ALICE, stdin, extra, true, command, args);
    TestCluster.Result running = as(ALICE, stdin, extra, false, command, args);
    assertEquals(java, running, command + " " + String.join(" ", args));
    return running;
  }

  private static TestCluster.Result same(String command, String... args) {
    return same("", Map.of(), command, args);
  }

  @Test
  void readingCommandsPrintTheSameBytes() {
    String number = held.substring(0, held.indexOf('.'));
    assertTrue(same("qstat").out().contains(number));
    same("qstat", "-a");
    same("qstat", "-f", held);
    same("qstat", "-f", "-1", held);
    same("qstat", "-x", held);
    same("qstat", "-n1", "-u", ALICE);
    same("qstat", "-B");
    same("qstat", "-Q");
    same("qstat", "-q");
    same("qstat", "-Qf");
    same("", Map.of("TZ", "America/New_York"), "qstat", "-f", held);
    same("", Map.of("TZ", "Asia/Kolkata"), "tracejob", held);
    same("", Map.of("PBS_QSTAT_NO_COMPLETE", "1"), "qstat");
    same("pbsnodes", "-a");
    same("pbsnodes", "-x");
    same("pbsnodes", "-l", "all");
    same("qmgr", "-c", "list server");
    same("qmgr", "-c", "print server");
    same("qmgr", "-c", "list queue batch");
    same("tracejob", held);
    same("qstat", "--version");
    assertTrue(
        same("qstat", "--help")
            .out()
            .startsWith(
                "qstat — show the status of jobs, queues and the server\n\n  qstat [-f [-1]]"));
    assertTrue(same("qsub", "--help").out().contains("\n  -N name "));
    same("qstat", "-T");
    same("pbsfs");
    same("pbsfs", "-F", "json");
    same("pbs_rstat");
    same("pbs_rstat", "-f");
    same("pbs_rstat", "-B");
    same("squeue", "-t", "all", "-o", "%i %j %u %t %P %D %R");
    String selected = same("qselect", "-h", "u", "-u", ALICE).out();
    assertTrue(("\n" + selected).contains("\n" + held + "\n"), selected);
    same("qselect", "-s", ".ne.C", "-l", "walltime.ge.00:00:01");
  }

  @Test
  void refusalsAreTheSameMessagesAndStatuses() {
    assertEquals(153, same("qstat", "999").exit());
    assertEquals(2, same("qstat", "-Z").exit());
    same("qstat", "-f", "-F", "yaml", held);
    same("pbsnodes", "nosuchnode");
    same("tracejob", "999");
    same("pbsfs", "-F", "xml");
    assertEquals(2, same("pbs_rsub", "-D", "3600").exit()); // no -l nodes=
    same("pbs_rdel", "R999");
    same("qdel");
    same("qdel", "999");
    same("qhold", "999");
    same("qrls", "999");
    same("qsig", "-s", "TERM", "999");
    assertEquals(2, same("qselect", "-s", "Z").exit());
    same("qalter", "-N", "x", "999");
    same("qmgr", "-c", "lst server");
    same("qmgr", "-c", "set server scheduling = False"); // alice is no manager
    same("qsub", "-l", "walltime=bogus", "job.sh");
    same("qsub", "-I");
    same("qsub", "nonexistent.sh");
    same("qsub", "adir");
    same("qsub", "-W", "depend=afterok:999", "job.sh");
    assertEquals(255, same("sbatch", "--bogus", "job.sh").exit());
    assertEquals(1, same("sbatch", "--array=5-1", "job.sh").exit());
    assertEquals(1, same("sbatch", "--gpus-per-task=1", "job.sh").exit());
    assertEquals(1, same("sbatch", "nonexistent.sh").exit());
    assertEquals(1, same("squeue", "--sort=x").exit());
    assertEquals(1, same("squeue", "--iterate=0").exit());
    assertEquals(1, same("squeue", "-o", "%q").exit());
  }

  /**
   * squeue -i lists again each interval until it is interrupted, both ways: the native client asks
   * the server again when the server says so, the Java command runs again itself.
   */
  @Test
  void squeueDashIListsAgainUntilInterrupted() {
    for (boolean java : new boolean[] {false, true}) {
      List<String> argv = new ArrayList<>(TestUsers.loginEnv(ALICE));
      argv.addAll(List.of("LANG=C.UTF-8", "BERTH_SERVER=" + cluster.socket));
      argv.addAll(List.of("timeout", "-s", "INT", "6"));
      Path bin = TestCluster.ROOT.resolve("ops/bin");
      argv.addAll(
          java
              ? List.of(bin.resolve("berth-java").toString(), "squeue")
              : List.of(bin.resolve("squeue").toString()));
      argv.addAll(List.of("-i", "1", "-o", "%i"));
      TestCluster.Result r = TestCluster.exec(work, argv, null, new byte[0]);
      long listings = r.out().lines().filter(l -> l.equals("JOBID")).count();
      assertTrue(listings >= 2, (java ? "java: " : "native: ") + r);
      assertTrue(r.out().contains("\n\n"), "a blank line after each listing: " + r);
    }
  }

  @Test
  void standardInputGoesToTheServerOnlyWhenTheCommandReadsIt() {
    compareSubmissions("", Map.of(), "qsub", "-h"); // an empty script, as Torque takes it
    same("list server\nlist queue batch\n", Map.of(), "qmgr");
    same("list server\nlst server\n", Map.of(), "qmgr", "-e");
    same("", Map.of(), "qmgr", "-c", "list server");
  }

  @Test
  void submissionsMakeTheSameJobs() {
    compareSubmissions("", Map.of(), "qsub", "-h", "job.sh");
    compareSubmissions("#PBS -N fromstdin\necho hi\n", Map.of(), "qsub", "-h");
    compareSubmissions("", Map.of("FOO", "bar"), "qsub", "-h", "-V", "job.sh");
    compareSubmissions("", Map.of("FOO", "bar"), "qsub", "-h", "-v", "FOO,BAZ=1", "job.sh");
    compareSubmissions("", Map.of("PBS_DPREFIX", "#X"), "qsub", "-h", "prefixed.sh");
    compareSubmissions("", Map.of("TZ", "Asia/Tokyo"), "qsub", "-h", "-a", "2359", "job.sh");
  }

  /** Submits both ways; the two jobs must differ in nothing but their numbers and times. */
  private static void compareSubmissions(
      String stdin, Map<String, String> extra, String command, String... args) {
    TestCluster.Result java = as(ALICE, stdin, extra, true, command, args);
    TestCluster.Result running = as(ALICE, stdin, extra, false, command, args);
    assertEquals(0, running.exit(), running.toString());
    assertEquals(java.err(), running.err());
    assertEquals(java.exit(), running.exit());
    assertEquals(
        described(java.out().strip()), described(running.out().strip()), String.join(" ", args));
  }

  private static final Pattern TIMES =
      Pattern.compile("(?m)^\\s+(ctime|mtime|qtime|etime) = .*\\n");

  /** {@code qstat -f id} without the job's number and the times it was made at. */
  private static String described(String id) {
    Matcher m = Pattern.compile("(\\d+)\\..*").matcher(id);
    assertTrue(m.matches(), "qsub printed " + id);
    String text = as(ALICE, "", Map.of(), false, "qstat", "-f", id).out();
    String number = m.group(1);
    return TIMES
        .matcher(text)
        .replaceAll("")
        .replaceAll("\\b" + number + "\\.", "N.")
        .replaceAll("\\.([oe])" + number + "\\b", ".$1N");
  }

  @Test
  void theCallersOwnPermissionsReadTheScript() throws Exception {
    long before = nextJobNumber();
    TestCluster.Result r = same("qsub", "secret.sh");
    assertEquals(
        "qsub: job script secret.sh cannot be read (permission denied)\n", r.err(), r.toString());
    assertEquals(before, nextJobNumber(), "no job was made");
  }

  @Test
  void theServerNeverOpensAFileForTheCaller() throws Exception {
    String secret = work.resolve("secret.sh").toString();
    RunCommand naming = command("qsub", "-h", secret).build();
    Response reply = RawClient.send(ALICE, cluster.socket, List.of(wrap(naming))).get(0);
    assertEquals(
        List.of(secret), reply.getCommand().getNeeds().getFilesList(), "the server asks for it");

    // Whatever the client claims a file holds is the caller's own script, submitted as the caller.
    RunCommand claiming =
        naming.toBuilder()
            .addFiles(
                LocalFile.newBuilder()
                    .setPath(secret)
                    .setContent(ByteString.copyFromUtf8("#PBS -N claimed\ntrue\n")))
            .build();
    reply = RawClient.send(ALICE, cluster.socket, List.of(wrap(claiming))).get(0);
    String id = stdout(reply.getCommand()).strip();
    TestCluster.Result f = as(ALICE, "", Map.of(), false, "qstat", "-f", id);
    assertTrue(f.out().contains("Job_Owner = " + ALICE + "@"), f.out());
    assertTrue(f.out().contains("Job_Name = claimed"), f.out());
  }

  @Test
  void identityIsTheKernelsWhateverTheEnvironmentSays() throws Exception {
    RunCommand forged =
        command("qsub", "-h")
            .addEnvironment("LOGNAME=" + BOB)
            .addEnvironment("USER=root")
            .addEnvironment("HOME=/root")
            .setStdinGiven(true)
            .setStdin(ByteString.copyFromUtf8("true\n"))
            .build();
    Response reply = RawClient.send(ALICE, cluster.socket, List.of(wrap(forged))).get(0);
    String id = stdout(reply.getCommand()).strip();
    TestCluster.Result f = as(ALICE, "", Map.of(), false, "qstat", "-f", id);
    assertTrue(f.out().contains("Job_Owner = " + ALICE + "@"), f.out());
    assertTrue(f.out().contains("euser = " + ALICE), f.out());

    // bob cannot delete alice's job by having the server run qdel either: he is refused as the
    // Java qdel refuses him, and the job stays
    Response del =
        RawClient.send(BOB, cluster.socket, List.of(wrap(command("qdel", id).build()))).get(0);
    TestCluster.Result java = as(BOB, "", Map.of(), true, "qdel", id);
    assertTrue(java.exit() != 0, java.toString());
    assertEquals(java.err(), stderr(del.getCommand()));
    assertEquals(java.exit(), del.getCommand().getExitStatus());
    assertEquals(0, as(ALICE, "", Map.of(), false, "qstat", id).exit());
  }

  @Test
  void malformedCommandsAreRefusedWithAMessage() throws Exception {
    List<Response> replies =
        RawClient.send(
            ALICE,
            cluster.socket,
            List.of(
                wrap(command("qstat").setCwd("relative/dir").build()),
                wrap(command("berth").build()),
                wrap(command("qstat", "-f", held).setCwd("/no\0where").build())));
    assertEquals(
        "qstat: the working directory 'relative/dir' is not an absolute path\n",
        stderr(replies.get(0).getCommand()));
    assertEquals("berth: not a command the server runs\n", stderr(replies.get(1).getCommand()));
    assertEquals(2, replies.get(1).getCommand().getExitStatus());
    assertTrue(stderr(replies.get(2).getCommand()).contains("is not an absolute path"));
  }

  /** A command as berth-cmd sends it: qsub with its probe of its working directory (alice's). */
  private static RunCommand.Builder command(String name, String... args) {
    RunCommand.Builder command =
        RunCommand.newBuilder()
            .setName(name)
            .addAllArgs(List.of(args))
            .setCwd(work.toString())
            .setWholeEnvironment(true)
            .addEnvironment("PATH=/usr/bin:/bin");
    if (name.equals("qsub")) {
      command.addProbes(
          LocalFile.newBuilder()
              .setPath(work.toString())
              .setProblem(LocalFile.Problem.DIRECTORY)
              .setWritable(true));
    }
    return command;
  }

  private static Request wrap(RunCommand command) {
    return Request.newBuilder().setId(1).setRunCommand(command).build();
  }

  private static String stdout(CommandReply reply) {
    return text(reply, false);
  }

  private static String stderr(CommandReply reply) {
    return text(reply, true);
  }

  private static String text(CommandReply reply, boolean err) {
    StringBuilder s = new StringBuilder();
    reply.getOutputList().stream()
        .filter(o -> o.getStderr() == err)
        .forEach(o -> s.append(o.getData().toStringUtf8()));
    return s.toString();
  }

  private static long nextJobNumber() throws Exception {
    try (BerthClient c = BerthClient.connect(cluster.socket)) {
      Response r = c.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()));
      return Long.parseLong(r.getServer().getAttributesOrThrow("next_job_number"));
    }
  }
}
