package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every quantity the server derives from a request is computed exactly: memory per node (pmem,
 * pvmem or mem times ppn), processes (count times ppn), times in milliseconds, array sizes, limits
 * changed with += . What does not fit is refused with the resources named, never wrapped around.
 */
class ResourceOverflowTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private void refusedSubmit(List<Attribute> attributes, String... fragments) {
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attributes.toArray(Attribute[]::new)),
        fragments);
    assertEquals(events, d.journal.size(), "nothing recorded");
  }

  @Test
  void pmemTimesPpnThatOverflowsIsRefused() {
    // 4pb fits; times 4096 processes on a node does not
    refusedSubmit(
        List.of(resource("nodes", "1:ppn=4096"), resource("pmem", "4pb")),
        "illegal value for resource pmem=4pb",
        "pmem times ppn=4096",
        "8192pb");
    refusedSubmit(
        List.of(resource("ncpus", "3"), resource("pvmem", "4000pb")),
        "resource pvmem=4000pb",
        "ppn=3");
  }

  @Test
  void memSharedOverProcessesThatOverflowsIsRefused() {
    refusedSubmit(
        List.of(resource("nodes", "2:ppn=2"), resource("mem", "8000pb")),
        "illegal value for resource mem=8000pb",
        "mem times ppn=2");
  }

  @Test
  void aQueueDefaultCannotMakeAnOverflowEither() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        op("resources_default", "pmem", Attribute.Op.SET, "5000pb"));
    refusedSubmit(List.of(resource("nodes", "1:ppn=2")), "resource pmem=5000pb", "ppn=2");
  }

  @Test
  void productsThatFitAreKeptExactly() {
    String id = d.submit(ALICE, resource("nodes", "1:ppn=2"), resource("pmem", "1gb"));
    assertEquals(1L << 30, d.job(id).getResources().getPmem());
  }

  @Test
  void sizesTimesAndNodeCountsThatDoNotFitAreRefused() {
    refusedSubmit(List.of(resource("mem", "9000pb")), "resource mem=9000pb", "too large");
    refusedSubmit(List.of(resource("mem", "99999999999999999999kb")), "resource mem=", "too large");
    refusedSubmit(
        List.of(resource("walltime", "9223372036854775807")),
        "resource walltime=9223372036854775807",
        "at most 9223372036854775 seconds");
    refusedSubmit(List.of(resource("nodes", "70000:ppn=70000")), "more than 2147483647 processes");
    refusedSubmit(List.of(resource("ncpus", "99999999999")), "resource ncpus=99999999999");
  }

  @Test
  void anAlterThatMakesAnOverflowIsRefusedAndTheJobKept() {
    String id =
        d.submit(
            ALICE,
            attr(AttributeNames.HOLD_TYPES, "u"),
            resource("nodes", "1:ppn=4"),
            resource("pmem", "1mb"));
    int events = d.journal.size();
    refused(Error.Code.BAD_VALUE, () -> d.qalter(ALICE, id, resource("pmem", "4000pb")), "ppn=4");
    assertEquals(events, d.journal.size());
    assertEquals(1L << 20, d.job(id).getResources().getPmem());
  }

  @Test
  void arraySizesAreBoundedByMaxJobArraySize() {
    d.setServer(ROOT, attr("max_job_array_size", "99999999999"));
    refused(
        Error.Code.BAD_ARRAY_REQUEST,
        () -> d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-2147483647")),
        "more than max_job_array_size (2147483647) subjobs");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("max_job_array_size", "-1")),
        "expected 0 or more");
  }

  @Test
  void plusEqualsOnALimitCannotWrapAround() {
    d.setServer(ROOT, attr("max_running", "9223372036854775800"));
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, op("max_running", Attribute.Op.INCR, "100")),
        "does not fit in 64 bits");
    assertEquals("9223372036854775800", d.state.serverAttribute("max_running").orElseThrow());
  }

  @Test
  void nodeCountsBeyondAnIntAreRefused() {
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.CREATE,
                Manage.ObjectType.NODE,
                List.of("n9"),
                attr("np", "99999999999")),
        "np 99999999999 is more than 2147483647");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.NODE,
                List.of("n1"),
                attr("gpus", "-2")),
        "expected 0 or more");
  }
}
