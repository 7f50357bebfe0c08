package dev.berth.server.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ResourcesUsed;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exact texts of job mail, as Torque's write_email and svr_format_job make them. */
class MailTextTest {
  private static final MailSettings DEFAULTS =
      new MailSettings(null, "adm", "PBS JOB %i", null, null, false);

  private static final Job JOB =
      Job.newBuilder()
          .setId("12.srv")
          .setName("train")
          .setOwner("alice@login1")
          .setEuser("alice")
          .setQueue("batch")
          .setOutputPath("login1:/home/alice/train.o12")
          .setErrorPath("login1:/home/alice/train.e12")
          .setJoinPath("n")
          .setInitWorkDir("/home/alice/run")
          .setResources(
              ResourceRequest.newBuilder()
                  .putValues("walltime", "01:00:00")
                  .putValues("nodes", "2:ppn=2"))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addAllCpus(List.of(0, 1)))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addAllCpus(List.of(0, 2, 3)))
          .build();

  private static final ResourcesUsed USED =
      ResourcesUsed.newBuilder()
          .setCput(61)
          .setMem(5 * 1024 * 1024)
          .setVmem(10 * 1024 * 1024)
          .setWalltime(3723)
          .build();

  private static final List<String> TO = List.of("alice@example.org", "bob@example.org");

  @Test
  void theBeginMail() {
    assertEquals(
        """
        To: alice@example.org,bob@example.org
        Subject: PBS JOB 12.srv
        Precedence: bulk

        PBS Job Id: 12.srv
        Job Name:   train
        Exec host:  n1/0-1+n2/0,2-3
        Begun execution
        Error_Path: login1:/home/alice/train.e12
        Output_Path: login1:/home/alice/train.o12
        """,
        MailText.message(DEFAULTS, TO, JOB, MailPoint.BEGIN, ""));
  }

  @Test
  void theEndMailListsTheExitStatusAndEachResourceUsed() {
    assertEquals(
        """
        To: alice@example.org,bob@example.org
        Subject: PBS JOB 12.srv
        Precedence: bulk

        PBS Job Id: 12.srv
        Job Name:   train
        Exec host:  n1/0-1+n2/0,2-3
        Execution terminated
        Exit_status=3
        resources_used.cput=00:01:01
        resources_used.mem=5120kb
        resources_used.vmem=10240kb
        resources_used.walltime=01:02:03
        Error_Path: login1:/home/alice/train.e12
        Output_Path: login1:/home/alice/train.o12
        """,
        MailText.message(DEFAULTS, TO, JOB, MailPoint.END, MailText.exitDetail(3, USED)));
  }

  @Test
  void theAbortMailKeepsTorquesTrailingSpaceAndGivesTheReason() {
    String detail =
        "job killed: walltime 3 exceeded limit 2 (00:00:02)\n"
            + MailText.exitDetail(-11, ResourcesUsed.getDefaultInstance());
    assertEquals(
        "To: alice@example.org,bob@example.org\n"
            + "Subject: PBS JOB 12.srv\n"
            + "Precedence: bulk\n"
            + "\n"
            + "PBS Job Id: 12.srv\n"
            + "Job Name:   train\n"
            + "Exec host:  n1/0-1+n2/0,2-3\n"
            + "Aborted by PBS Server \n"
            + "job killed: walltime 3 exceeded limit 2 (00:00:02)\n"
            + "Exit_status=-11\n"
            + "resources_used.cput=00:00:00\n"
            + "resources_used.mem=0kb\n"
            + "resources_used.vmem=0kb\n"
            + "resources_used.walltime=00:00:00\n"
            + "Error_Path: login1:/home/alice/train.e12\n"
            + "Output_Path: login1:/home/alice/train.o12\n",
        MailText.message(DEFAULTS, TO, JOB, MailPoint.ABORT, detail));
  }

  @Test
  void aQueuedJobsDeleteMailHasNoExecHostLine() {
    Job queued = JOB.toBuilder().clearExecNodes().setJoinPath("oe").build();
    assertEquals(
        """
        To: alice@login1
        Subject: PBS JOB 12.srv
        Precedence: bulk

        PBS Job Id: 12.srv
        Job Name:   train
        job deleted
        Job deleted at request of root@head
        Error_Path: login1:/home/alice/train.o12
        Output_Path: login1:/home/alice/train.o12
        """,
        MailText.message(
            DEFAULTS,
            List.of("alice@login1"),
            queued,
            MailPoint.DELETE,
            "Job deleted at request of root@head"));
  }

  @Test
  void everyEscapeOfTheFormats() {
    var f = MailText.Fields.of(JOB.toBuilder().setResourcesUsed(USED).build(), MailPoint.END, "D");
    assertEquals(
        "12.srv|train|n1/0-1+n2/0,2-3|Execution terminated|Execution terminated|D"
            + "|login1:/home/alice/train.e12|login1:/home/alice/train.o12|alice@login1|batch"
            + "|/home/alice/run",
        MailText.format("%i|%j|%h|%m|%r|%d|%k|%l|%o|%q|%w", f));
    assertEquals(
        "Resources Requested Summary\n\tnodes=2:ppn=2\n\twalltime=01:00:00\n",
        MailText.format("%R", f));
    assertEquals(
        "Resources Used Summary\n\tcput=00:01:01\n\tmem=5120kb\n\tvmem=10240kb"
            + "\n\twalltime=01:02:03\n",
        MailText.format("%u", f));
    assertEquals("a\nb\tc\\d'e\"f", MailText.format("a\\nb\\tc\\\\d\\'e\\\"f", f));
  }

  @Test
  void anUnknownEscapeIsWrittenAsItStandsAndReadingGoesOn() {
    var f = MailText.Fields.of(JOB, MailPoint.BEGIN, "");
    assertEquals(
        "%x \\x 100% 12.srv trailing % and \\",
        MailText.format("%x \\x 100% %i trailing % and \\", f));
    assertEquals("%12.srv", MailText.format("%%i", f), "no %% escape: % then %i");
    Job bare = JOB.toBuilder().clearResources().build();
    assertEquals("", MailText.format("%u%R", MailText.Fields.of(bare, MailPoint.BEGIN, "")));
  }

  @Test
  void theSubjectStaysOneLineWhateverTheFormatOrTheValues() {
    MailSettings multiline =
        new MailSettings(null, "adm", "Job %i\\nBcc: eve@example.org %d", "%j\\n", null, false);
    String message =
        MailText.message(
            multiline, List.of("alice@login1"), JOB, MailPoint.ABORT, "reason\nExit_status=1");
    assertEquals(
        "To: alice@login1\n"
            + "Subject: Job 12.srv Bcc: eve@example.org reason Exit_status=1\n"
            + "Precedence: bulk\n"
            + "\n"
            + "train\n",
        message);
  }

  @Test
  void aBodyKeepsLinesAndTabsButNoTerminalEscapes() {
    MailSettings body = new MailSettings(null, "adm", "PBS JOB %i", "%d\\t.\\n", null, false);
    assertEquals(
        "To: a\nSubject: PBS JOB 12.srv\nPrecedence: bulk\n\nbad \\x1b[2J\\r\nend\t.\n",
        MailText.message(body, List.of("a"), JOB, MailPoint.ABORT, "bad \u001b[2J\r\nend"));
  }

  @Test
  void anOverlongMessageIsCutAndSaysSo() {
    MailSettings huge = new MailSettings(null, "adm", "PBS JOB %i", "%R".repeat(2000), null, false);
    String message = MailText.message(huge, List.of("a"), JOB, MailPoint.BEGIN, "");
    assertEquals(MailText.MAX_CHARS, message.indexOf("\n[the message was cut: it had "));
    assertTrue(
        message.startsWith(
            "To: a\nSubject: PBS JOB 12.srv\nPrecedence: bulk\n\nResources Requested Summary\n"),
        message.substring(0, 100));
    assertTrue(message.endsWith(" characters]\n"));
  }
}
