package dev.berth.server.mail;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.ServerInbound;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who gets which mail when, through the events the server really decides: each step is driven as
 * the pipeline drives it, and the mail is what {@link JobMails} makes of the step's events.
 */
class JobMailsTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private String submit(String mailPoints, String... more) {
    var attributes =
        new java.util.ArrayList<>(List.of(attr(AttributeNames.MAIL_POINTS, mailPoints)));
    for (int i = 0; i < more.length; i += 2) {
      attributes.add(attr(more[i], more[i + 1]));
    }
    return d.submit(ALICE, attributes.toArray(dev.berth.proto.Attribute[]::new));
  }

  /** The letters the events of {@code step} call for. */
  private List<Letter> mail(Runnable step) {
    ClusterState before = d.state;
    int mark = d.journal.size();
    step.run();
    return JobMails.letters(before, d.state, d.eventsSince(mark));
  }

  private List<MailPoint> points(Runnable step) {
    return mail(step).stream().map(Letter::point).toList();
  }

  private void obit(String id, int status, String reason, ResourcesUsed used) {
    String node = d.motherSuperior(id);
    d.fromNode(
        node,
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(node)
                    .setJobId(id)
                    .setExitStatus(status)
                    .setEndTime(d.nowSeconds())
                    .setReason(reason)
                    .setResourcesUsed(used)));
  }

  private void run(String id) {
    d.schedule();
    d.started(id);
  }

  @Test
  void abeMailsTheBeginAndTheEndToTheMailUsers() {
    String id = submit("abe", AttributeNames.MAIL_USERS, "someone@example.org,other@example.org");
    assertEquals(List.of(), points(d::schedule), "dispatched is not begun");
    List<Letter> begun = mail(() -> d.started(id));
    assertEquals(List.of(MailPoint.BEGIN), begun.stream().map(Letter::point).toList());
    assertEquals(
        """
        To: someone@example.org,other@example.org
        Subject: PBS JOB 1.srv
        Precedence: bulk

        PBS Job Id: 1.srv
        Job Name:   STDIN
        Exec host:  n1/0
        Begun execution
        Error_Path: login1:/home/alice/STDIN.e1
        Output_Path: login1:/home/alice/STDIN.o1
        """,
        begun.get(0).message());
    List<Letter> ended = mail(() -> d.obit(id, 1));
    assertEquals(List.of(MailPoint.END), ended.stream().map(Letter::point).toList());
    assertTrue(
        ended
            .get(0)
            .message()
            .contains(
                "Execution terminated\nExit_status=1\nresources_used.cput=00:00:03\n"
                    + "resources_used.mem=0kb\nresources_used.vmem=0kb\n"
                    + "resources_used.walltime=00:00:05\nError_Path: "),
        ended.get(0).message());
    assertEquals("", ended.get(0).sendmail());
    assertEquals("adm", ended.get(0).from());
  }

  @Test
  void theDefaultMailPointsMailOnlyAnAbort() {
    String plain = submit("a");
    run(plain);
    assertEquals(List.of(), points(() -> d.obit(plain, 0)));
    String failing = submit("a");
    d.schedule();
    assertEquals(
        List.of(MailPoint.ABORT),
        points(() -> obit(failing, -1, "could not start on n1: no such user", used())));
  }

  @Test
  void anAbortIsMailedEvenWithMailPointsNButNotWithP() {
    String n = submit("n");
    run(n);
    List<Letter> aborted =
        mail(() -> obit(n, -11, "job killed: walltime 3 exceeded limit 2 (00:00:02)", used()));
    assertEquals(List.of(MailPoint.ABORT), aborted.stream().map(Letter::point).toList());
    assertTrue(
        aborted
            .get(0)
            .message()
            .contains(
                "Exec host:  n1/0\nAborted by PBS Server \n"
                    + "job killed: walltime 3 exceeded limit 2 (00:00:02)\nExit_status=-11\n"
                    + "resources_used.cput=00:00:01\n"),
        aborted.get(0).message());
    String p = submit("p");
    run(p);
    assertEquals(List.of(), points(() -> obit(p, -11, "job killed: walltime", used())));
  }

  @Test
  void anAbortIsNotAlsoAnEnd() {
    String id = submit("abe");
    run(id);
    assertEquals(
        List.of(MailPoint.ABORT),
        points(
            () ->
                obit(
                    id, 0, "memory: 1 process killed", used().toBuilder().setOomKills(1).build())));
  }

  @Test
  void noMailForceMakesAbortsFollowMailPoints() {
    d.setServer(ROOT, attr(ServerAttributeNames.NO_MAIL_FORCE, "True"));
    String id = submit("n");
    run(id);
    assertEquals(List.of(), points(() -> obit(id, -11, "job killed: walltime", used())));
  }

  @Test
  void mailPointsFMailsOnlyANonZeroExit() {
    String ok = submit("f");
    assertEquals(List.of(), points(() -> run(ok)));
    assertEquals(List.of(), points(() -> d.obit(ok, 0)));
    String failed = submit("f");
    run(failed);
    assertEquals(List.of(MailPoint.END), points(() -> d.obit(failed, 2)));
  }

  @Test
  void anOwnersQdelMailsNothingButTheEnd() {
    String queued = submit("abe");
    d.qhold(ALICE, queued, "u");
    assertEquals(List.of(), points(() -> d.qdel(ALICE, queued)));
    String running = submit("abe");
    run(running);
    assertEquals(List.of(), points(() -> d.qdel(ALICE, running)));
    assertEquals(
        List.of(MailPoint.END), points(() -> obit(running, 271, "", used())), "not an abort");
  }

  @Test
  void someoneElsesQdelIsADeleteMailEvenWithoutMailPoints() {
    String queued = submit("n");
    d.qhold(ALICE, queued, "u");
    List<Letter> deleted = mail(() -> d.qdel(ROOT, queued));
    assertEquals(List.of(MailPoint.DELETE), deleted.stream().map(Letter::point).toList());
    assertTrue(
        deleted
            .get(0)
            .message()
            .contains("Job Name:   STDIN\njob deleted\nJob deleted at request of root@head\n"),
        deleted.get(0).message());

    String running = submit("e");
    run(running);
    assertEquals(List.of(MailPoint.DELETE), points(() -> d.qdel(ROOT, running)));
    assertEquals(List.of(MailPoint.END), points(() -> obit(running, 271, "", used())));
  }

  @Test
  void aPurgeBySomeoneElseIsADeleteMail() {
    String id = submit("abe");
    run(id);
    assertEquals(List.of(MailPoint.DELETE), points(() -> d.qdelPurge(ROOT, id)));
  }

  @Test
  void aDependencyThatCanNeverBeMetAbortsTheJob() {
    String first = submit("n");
    run(first);
    String second = submit("a", AttributeNames.DEPEND, "afterok:" + first);
    List<Letter> letters = mail(() -> d.obit(first, 1));
    assertEquals(List.of(MailPoint.ABORT), letters.stream().map(Letter::point).toList());
    assertTrue(letters.get(0).message().contains("PBS Job Id: " + second + "\n"));
  }

  @Test
  void aLostJobThatCannotRunAgainIsAborted() {
    String id = submit("n", AttributeNames.RERUNABLE, "n");
    run(id);
    List<Letter> letters = mail(() -> d.run(new Decider.NodeDown("n1"), "server"));
    assertEquals(List.of(MailPoint.ABORT), letters.stream().map(Letter::point).toList());
    assertTrue(
        letters.get(0).message().contains("job lost: node n1 went down (not rerunnable)\n"),
        letters.get(0).message());
  }

  @Test
  void mailDomainNeverStopsAllMailAndADomainAddressesTheOwner() {
    d.setServer(ROOT, attr(ServerAttributeNames.MAIL_DOMAIN, "never"));
    String silent = submit("abe");
    assertEquals(List.of(), points(() -> run(silent)));
    assertEquals(List.of(), points(() -> obit(silent, -1, "could not start", used())));

    d.setServer(
        ROOT,
        attr(ServerAttributeNames.MAIL_DOMAIN, "example.org"),
        attr(ServerAttributeNames.MAIL_FROM, "pbs@example.org"),
        attr(ServerAttributeNames.MAIL_SUBJECT_FMT, "%j %m"));
    String id = submit("b");
    d.schedule();
    Letter begun = mail(() -> d.started(id)).get(0);
    assertTrue(
        begun.message().startsWith("To: alice@example.org\nSubject: STDIN Begun execution\n"),
        begun.message());
    assertEquals("pbs@example.org", begun.from());
  }

  @Test
  void eventsThatEndNothingMailNothing() {
    String id = submit("abe");
    assertEquals(List.of(), points(() -> d.qhold(ALICE, id, "u")));
    assertEquals(List.of(), points(() -> d.qrls(ALICE, id, "u")));
    assertEquals(List.of(), points(d::tick));
  }

  private static ResourcesUsed used() {
    return ResourcesUsed.newBuilder().setCput(1).setWalltime(3).build();
  }
}
