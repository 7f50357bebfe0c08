package dev.berth.server.command;

import dev.berth.proto.Error;

/** A command that cannot be carried out; the message is shown to the user as is. */
public final class CommandException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Error.Code code;

  public CommandException(Error.Code code, String message) {
    super(message);
    this.code = code;
  }

  public Error.Code code() {
    return code;
  }

  public Error toError() {
    return Error.newBuilder().setCode(code).setMessage(getMessage()).build();
  }
}
