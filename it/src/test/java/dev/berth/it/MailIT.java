package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Job mail through a stand-in sendmail: the server runs it (sendmail_path) with the message on its
 * input, and it keeps its arguments and input in a spool directory, where the test reads the exact
 * texts. The server sends one letter at a time in commit order, so a later job's mail arriving
 * proves that an earlier job's would have arrived by then.
 */
@Tag("integration")
class MailIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  static TestCluster cluster;
  static Path spool;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE);
    cluster = TestCluster.start();
    spool = Files.createTempDirectory(Path.of("/tmp"), "berth-mail-");
    Files.setPosixFilePermissions(spool, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path sendmail = spool.resolve("sendmail");
    Files.writeString(
        sendmail,
        "#!/bin/sh\n"
            + "n=$(date +%s%N)\n"
            + "printf '%s\\n' \"$@\" > "
            + spool
            + "/$n.argv\n"
            + "cat > "
            + spool
            + "/$n.tmp && mv "
            + spool
            + "/$n.tmp "
            + spool
            + "/$n.mail\n");
    Files.setPosixFilePermissions(sendmail, PosixFilePermissions.fromString("rwxr-xr-x"));
    qmgr("set server sendmail_path = " + sendmail);
    work = MultiNodeCluster.workFor(ALICE, "berth-mail-work-");
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    JobFiles.removeTree(work);
    JobFiles.removeTree(spool);
  }

  @Test
  void abeMailsTheBeginAndTheEndWithTheExitStatusAndTheResourcesUsed() throws IOException {
    String id = submit("echo hi\n", "-N", "mailok", "-m", "abe", "-M", "someone@example.org");
    Job job = cluster.awaitState(id, JobState.COMPLETED);
    assertEquals(
        headers("someone@example.org", id) + body(job, "Begun execution") + paths(job, "mailok"),
        awaitMail(id, "Begun execution"));
    assertEquals(
        headers("someone@example.org", id)
            + body(job, "Execution terminated")
            + "Exit_status=0\n"
            + resourcesUsed(id)
            + paths(job, "mailok"),
        awaitMail(id, "Execution terminated"));
    assertEquals("-t\n-oi\n-f\nadm\n", argv(id, "Execution terminated"));
  }

  @Test
  void aFailingJobsEndMailHasItsExitStatus() throws IOException {
    String id = submit("exit 3\n", "-N", "mailfail", "-m", "e", "-M", "someone@example.org");
    Job job = cluster.awaitState(id, JobState.COMPLETED);
    assertEquals(3, job.getExitStatus());
    assertEquals(
        headers("someone@example.org", id)
            + body(job, "Execution terminated")
            + "Exit_status=3\n"
            + resourcesUsed(id)
            + paths(job, "mailfail"),
        awaitMail(id, "Execution terminated"));
  }

  @Test
  void aJobKilledAtItsWalltimeIsMailedAnAbortAndNoEnd() throws IOException {
    String id =
        submit(
            "sleep 60\n",
            "-N",
            "mailwall",
            "-m",
            "abe",
            "-M",
            "someone@example.org",
            "-l",
            "walltime=00:00:02");
    Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, WITHIN);
    assertEquals(-11, job.getExitStatus());
    assertTrue(
        Pattern.matches(
            "job killed: walltime \\d+ exceeded limit 2 \\(00:00:02\\)", job.getExitReason()),
        job.getExitReason());
    assertEquals(
        headers("someone@example.org", id)
            + body(job, "Aborted by PBS Server ")
            + job.getExitReason()
            + "\nExit_status=-11\n"
            + resourcesUsed(id)
            + paths(job, "mailwall"),
        awaitMail(id, "Aborted by PBS Server "));
    String later = submit("true\n", "-N", "barrier", "-m", "b", "-M", "someone@example.org");
    awaitMail(later, "Begun execution");
    assertEquals(List.of("Begun execution", "Aborted by PBS Server "), messagesOf(id));
  }

  @Test
  void theDefaultMailsOnlyAnAbortAndMailPointsNNothingOrdinary() throws IOException {
    String quiet = submit("exit 1\n", "-N", "quiet", "-m", "n");
    cluster.awaitState(quiet, JobState.COMPLETED);
    String plain = submit("true\n", "-N", "plain");
    cluster.awaitState(plain, JobState.COMPLETED);
    String later = submit("true\n", "-N", "barrier", "-m", "b", "-M", "someone@example.org");
    awaitMail(later, "Begun execution");
    assertEquals(List.of(), messagesOf(quiet));
    assertEquals(List.of(), messagesOf(plain));
  }

  @Test
  void withoutMailUsersTheOwnerGetsTheMailAtJobOwnerOrMailDomain() throws IOException {
    String owner = submit("true\n", "-N", "toowner", "-m", "b");
    awaitMail(owner, "Begun execution");
    assertTrue(
        mailsOf(owner).get(0).startsWith("To: " + ALICE + "@" + cluster.node + "\n"),
        mailsOf(owner).toString());
    qmgr("set server mail_domain = example.org");
    try {
      String domain = submit("true\n", "-N", "todomain", "-m", "b");
      awaitMail(domain, "Begun execution");
      assertTrue(
          mailsOf(domain).get(0).startsWith("To: " + ALICE + "@example.org\n"),
          mailsOf(domain).toString());
    } finally {
      qmgr("unset server mail_domain");
    }
  }

  @Test
  void headerInjectionIsRefusedOrLeftOutOrStaysInsideItsHeader() throws IOException {
    TestCluster.Result name = qsub("true\n", "-N", "x\nBcc: eve@example.org", "-m", "b");
    assertNotEquals(0, name.exit(), name.toString());
    assertTrue(name.err().contains("control character \\n"), name.err());
    // Torque takes any -M; mail goes only to the plain addresses in it, or nowhere
    String mixed =
        submit("true\n", "-m", "b", "-M", "someone@example.org,Eve <eve@example.org>,|/bin/sh");
    String none = submit("true\n", "-m", "b", "-M", "someone@example.org Bcc: eve@example.org");
    String option = submit("true\n", "-m", "b", "-M", "-oQ/tmp/queue");
    String later = submit("true\n", "-m", "b", "-M", "later@example.org");
    assertTrue(awaitMail(mixed, "Begun execution").startsWith("To: someone@example.org\n"));
    awaitMail(later, "Begun execution"); // mail goes out in order: the others' would be there
    assertEquals(List.of(), mailsOf(none));
    assertEquals(List.of(), mailsOf(option));
    TestCluster.Result escaped = qsub("true\n", "-m", "b", "-M", "someone@example.org\rBcc: eve");
    assertNotEquals(0, escaped.exit(), escaped.toString());

    // A name with header syntax but no line break stays in the subject it is put in.
    qmgr("set server mail_subject_fmt = \"%j\\nBcc: eve@example.org\"");
    try {
      String id = submit("true\n", "-N", "To: eve@example.org", "-m", "b", "-M", "a@example.org");
      String mail = awaitMail(id, "Begun execution");
      String head = mail.substring(0, mail.indexOf("\n\n") + 1);
      assertEquals(
          "To: a@example.org\n"
              + "Subject: To: eve@example.org Bcc: eve@example.org\n"
              + "Precedence: bulk\n",
          head);
    } finally {
      qmgr("unset server mail_subject_fmt");
    }
    // Users may not choose what the server runs.
    TestCluster.Result set =
        cluster.runAs(ALICE, work, "qmgr", "-c", "set server sendmail_path = /tmp/evil");
    assertNotEquals(0, set.exit(), set.toString());
  }

  // ---- helpers ----

  private static void qmgr(String command) {
    TestCluster.Result r = cluster.cli("qmgr", "-c", command);
    assertEquals(0, r.exit(), command + ": " + r);
  }

  private static TestCluster.Result qsub(String script, String... args) throws IOException {
    Path file = work.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, script);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add(file.toString());
    return cluster.runAs(ALICE, work, "qsub", argv.toArray(String[]::new));
  }

  /** Submits as alice and returns the job id. */
  private static String submit(String script, String... args) throws IOException {
    TestCluster.Result r = qsub(script, args);
    assertEquals(0, r.exit(), r.toString());
    return r.out().trim();
  }

  private static String headers(String to, String id) {
    return "To: " + to + "\nSubject: PBS JOB " + id + "\nPrecedence: bulk\n\n";
  }

  private static String body(Job job, String message) {
    var ms = job.getExecNodes(0);
    String host =
        ms.getNode()
            + "/"
            + ms.getCpusList().stream().map(String::valueOf).collect(Collectors.joining(","));
    return "PBS Job Id: "
        + job.getId()
        + "\nJob Name:   "
        + job.getName()
        + "\nExec host:  "
        + host
        + "\n"
        + message
        + "\n";
  }

  private static String paths(Job job, String name) {
    String base = cluster.node + ":" + work + "/" + name;
    return "Error_Path: "
        + base
        + ".e"
        + job.getNumber()
        + "\nOutput_Path: "
        + base
        + ".o"
        + job.getNumber()
        + "\n";
  }

  /** The job's resources_used lines as qstat -f shows them, written as the end mail has them. */
  private static String resourcesUsed(String id) {
    String full = cluster.cli("qstat", "-f", id).out();
    StringBuilder lines = new StringBuilder();
    for (String line : full.split("\n")) {
      String t = line.trim();
      if (t.startsWith("resources_used.")) {
        lines.append(t.replace(" = ", "=")).append('\n');
      }
    }
    assertTrue(lines.toString().contains("resources_used.walltime="), full);
    return lines.toString();
  }

  private static List<Path> spooled() {
    try (Stream<Path> files = Files.list(spool)) {
      return files.filter(f -> f.toString().endsWith(".mail")).sorted().toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> mailsOf(String id) {
    List<String> mails = new ArrayList<>();
    for (Path f : spooled()) {
      try {
        String text = Files.readString(f);
        if (text.contains("\nPBS Job Id: " + id + "\n")) {
          mails.add(text);
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return mails;
  }

  /** The standard message (%m) of each of the job's mails, in the order they were sent. */
  private static List<String> messagesOf(String id) {
    return mailsOf(id).stream()
        .map(m -> m.split("\n"))
        .map(lines -> lines[lines[6].startsWith("Exec host:") ? 7 : 6])
        .toList();
  }

  private static String awaitMail(String id, String message) {
    MultiNodeCluster.awaitTrue(
        () -> mailsOf(id).stream().anyMatch(m -> m.contains("\n" + message + "\n")),
        WITHIN,
        () -> "no '" + message + "' mail for " + id + "; spooled: " + spooled());
    return mailsOf(id).stream().filter(m -> m.contains("\n" + message + "\n")).findFirst().get();
  }

  private static String argv(String id, String message) throws IOException {
    for (Path f : spooled()) {
      String text = Files.readString(f);
      if (text.contains("\nPBS Job Id: " + id + "\n") && text.contains("\n" + message + "\n")) {
        return Files.readString(
            f.resolveSibling(f.getFileName().toString().replace(".mail", ".argv")));
      }
    }
    throw new AssertionError("no mail");
  }
}
