package dev.berth.server.command.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.server.command.CommandException;
import org.junit.jupiter.api.Test;

/** Every job attribute of core's table is one the server takes, and no other name is. */
class JobAttributesTest {
  private static Attribute attribute(String name, String resource, String value) {
    return Attribute.newBuilder().setName(name).setResource(resource).setValue(value).build();
  }

  @Test
  void everyAttributeOfTheTableIsHandled() {
    for (AttributeDef d : AttributeTable.JOB.definitions()) {
      Attribute a = attribute(d.name(), d.type().named() ? "walltime" : "", "1");
      try {
        JobAttributes.apply(Job.newBuilder(), a);
      } catch (CommandException e) {
        // its own check refused "1": it was handled
        assertEquals(Error.Code.BAD_VALUE, e.code(), d.name() + ": " + e.getMessage());
      }
    }
  }

  @Test
  void aNameNotInTheTableIsRefusedByName() {
    CommandException e =
        assertThrows(
            CommandException.class,
            () -> JobAttributes.apply(Job.newBuilder(), attribute("job_state", "", "R")));
    assertEquals(Error.Code.UNKNOWN_ATTRIBUTE, e.code());
    assertEquals("undefined job attribute 'job_state'", e.getMessage());
    e =
        assertThrows(
            CommandException.class,
            () -> JobAttributes.apply(Job.newBuilder(), attribute("stagein", "", "a@b:/c")));
    assertEquals(Error.Code.NOT_IMPLEMENTED, e.code());
  }
}
