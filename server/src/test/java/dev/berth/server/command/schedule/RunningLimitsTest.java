package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Manage;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.Test;

/** max_running and max_user_run, on the server and on queues, hold back the scheduler. */
class RunningLimitsTest {
  private final Driver d = Driver.withTwoNodes();

  @Test
  void serverMaxRunningCapsAllJobs() {
    d.setServer(ROOT, attr("max_running", "2"));
    List<String> jobs = List.of(d.submit(ALICE), d.submit(BOB), d.submit(ALICE));
    assertEquals(jobs.subList(0, 2), d.schedule());
    assertEquals(List.of(), d.schedule(), "two run, the third waits");
    d.started(jobs.get(0));
    d.obit(jobs.get(0), 0);
    assertEquals(List.of(jobs.get(2)), d.schedule(), "one ended, the next may start");
  }

  @Test
  void maxUserRunCapsEachUserSeparately() {
    d.setServer(ROOT, attr("max_user_run", "1"));
    String a1 = d.submit(ALICE);
    d.submit(ALICE);
    String b1 = d.submit(BOB);
    assertEquals(List.of(a1, b1), d.schedule());
  }

  @Test
  void queueLimitsApplyToTheirQueueOnly() {
    d.qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("small"),
        attr("enabled", "True"),
        attr("started", "True"),
        attr("max_running", "1"));
    String s1 = d.submit(ALICE, attr("destination", "small"));
    d.submit(ALICE, attr("destination", "small"));
    String b1 = d.submit(ALICE);
    String b2 = d.submit(ALICE);
    assertEquals(List.of(s1, b1, b2), d.schedule());
  }
}
