package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Attribute;
import dev.berth.proto.Manage;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WalltimeEstimateTest {
  private final Driver d = Driver.withTwoNodes();

  private Optional<WalltimeEstimate> of(String id) {
    return WalltimeEstimate.of(d.job(id), d.state);
  }

  private void queue(String attribute, String value) {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        op(attribute, "walltime", Attribute.Op.SET, value));
  }

  @Test
  void aJobWithAWalltimeHasNone() {
    assertEquals(Optional.empty(), of(d.submit(ALICE, resource("walltime", "0:10:00"))));
  }

  @Test
  void theDefaultsThenTheMaximaOfTheQueueThenTheServerThenAnHour() {
    String job = d.submit(ALICE); // before any default: no walltime of its own
    assertEquals(
        Optional.of(new WalltimeEstimate(3600, "the server's estimate for jobs without one")),
        of(job));
    d.setServer(ROOT, op("resources_max", "walltime", Attribute.Op.SET, "04:00:00"));
    assertEquals(
        Optional.of(new WalltimeEstimate(14400, "resources_max.walltime of the server")), of(job));
    queue("resources_max", "02:00:00");
    assertEquals(
        Optional.of(new WalltimeEstimate(7200, "resources_max.walltime of queue batch")), of(job));
    d.setServer(ROOT, op("resources_default", "walltime", Attribute.Op.SET, "00:30:00"));
    assertEquals(
        Optional.of(new WalltimeEstimate(1800, "resources_default.walltime of the server")),
        of(job));
    queue("resources_default", "00:10:00");
    assertEquals(
        Optional.of(new WalltimeEstimate(600, "resources_default.walltime of queue batch")),
        of(job));
  }

  @Test
  void aJobThatOutrunsItsEstimateIsPlannedOneEstimateMore() {
    WalltimeEstimate e = new WalltimeEstimate(100, "test");
    assertEquals(1100, e.endAt(1000, 1000));
    assertEquals(1100, e.endAt(1000, 1099));
    assertEquals(1200, e.endAt(1000, 1100));
    assertEquals(1300, e.endAt(1000, 1250));
    assertEquals(1100, e.endAt(1000, 900), "not started yet as planned");
  }
}
