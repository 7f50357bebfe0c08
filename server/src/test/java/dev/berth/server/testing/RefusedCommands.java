package dev.berth.server.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Error;
import dev.berth.server.command.CommandException;
import org.junit.jupiter.api.function.Executable;

/** A command refused as it should be: with this code and a message that says these things. */
public final class RefusedCommands {
  private RefusedCommands() {}

  public static CommandException refused(Error.Code code, Executable command, String... fragments) {
    CommandException e = assertThrows(CommandException.class, command);
    assertEquals(code, e.code(), e.getMessage());
    for (String f : fragments) {
      assertTrue(
          e.getMessage().contains(f),
          "message '" + e.getMessage() + "' should contain '" + f + "'");
    }
    return e;
  }
}
