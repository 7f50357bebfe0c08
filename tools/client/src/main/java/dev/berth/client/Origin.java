package dev.berth.client;

import dev.berth.core.Hosts;
import java.time.ZoneId;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Where a command was started, beyond its arguments and environment: the host it runs on, that
 * host's time zone, whether it talks to a terminal, how it reads the files it names, and how it
 * reaches the server. A command run as a process takes these from the process; one the server runs
 * for the native client (tools/cmd) takes them from what the client sent.
 *
 * @param host the host name (qsub's output paths and PBS_O_HOST), asked for only when needed
 * @param zone the host's own time zone, for when {@code TZ} does not name one
 * @param terminal whether standard input and output are a terminal (qmgr prompts then)
 * @param files how named files are read
 * @param server how to reach the server, or null to find its socket from the environment
 * @param submissionId the id qsub gives its submission, asked for once per submission
 */
public record Origin(
    Supplier<String> host,
    ZoneId zone,
    boolean terminal,
    LocalFiles files,
    Connector server,
    Supplier<String> submissionId) {

  /** This process's own. */
  public static Origin ofProcess() {
    return new Origin(
        Hosts::localName,
        ZoneId.systemDefault(),
        System.console() != null,
        LocalFiles.PROCESS,
        null,
        () -> UUID.randomUUID().toString());
  }
}
