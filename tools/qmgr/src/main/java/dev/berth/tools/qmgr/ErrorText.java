package dev.berth.tools.qmgr;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import java.util.Map;

/** Torque's message for an error code, for a server error that comes without a message. */
final class ErrorText {
  private static final Map<Error.Code, String> TEXT =
      Map.ofEntries(
          Map.entry(Error.Code.UNKNOWN_JOB, "Unknown Job Id Error"),
          Map.entry(Error.Code.UNKNOWN_ATTRIBUTE, "Undefined attribute"),
          Map.entry(
              Error.Code.READ_ONLY_ATTRIBUTE,
              "Cannot set attribute, read only or insufficient permission"),
          Map.entry(Error.Code.INVALID_REQUEST, "Invalid request"),
          Map.entry(Error.Code.UNKNOWN_REQUEST, "Unknown request"),
          Map.entry(Error.Code.PERMISSION, "Unauthorized Request"),
          Map.entry(Error.Code.SYSTEM, "System error"),
          Map.entry(Error.Code.INTERNAL, "PBS server internal error"),
          Map.entry(Error.Code.BAD_VALUE, "Illegal attribute or resource value"),
          Map.entry(Error.Code.UNKNOWN_QUEUE, "Unknown queue"),
          Map.entry(Error.Code.QUEUE_EXISTS, "Queue already exists"),
          Map.entry(Error.Code.QUEUE_BUSY, "Cannot delete busy queue"),
          Map.entry(Error.Code.PROTOCOL, "Batch protocol error"),
          Map.entry(Error.Code.UNKNOWN_RESOURCE, "Unknown resource type"),
          Map.entry(Error.Code.SERVER_DOWN, "Request not allowed: Server shutting down"),
          Map.entry(Error.Code.UNKNOWN_NODE, "Unknown node"),
          Map.entry(Error.Code.NODE_EXISTS, "Node name already exists"),
          Map.entry(Error.Code.NOT_IMPLEMENTED, "This functionality is not yet implemented"),
          Map.entry(Error.Code.INVALID_SYNTAX, "Command syntax invalid"));

  private ErrorText() {}

  /** The error's own message (control characters escaped), else Torque's text, else the code. */
  static String of(Error error) {
    if (!error.getMessage().isBlank()) {
      return ControlCharacters.escape(error.getMessage());
    }
    String text = TEXT.get(error.getCode());
    return text != null ? text : "Error " + error.getCodeValue();
  }
}
