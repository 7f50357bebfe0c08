package dev.berth.client;

import dev.berth.proto.Error;

/** Exit statuses of the CLIs, following Torque: a server error exits with its PBSE code % 256. */
public final class ExitCodes {
  public static final int OK = 0;
  public static final int USAGE = 2;

  /** Torque's commands exit 1 when they cannot reach the server. */
  public static final int UNAVAILABLE = 1;

  private ExitCodes() {}

  public static int of(Error error) {
    int code = error.getCodeValue() % 256;
    return code == 0 ? 1 : code;
  }
}
