package dev.berth.mom.os;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How to start one job process: as whom, where, with which files and environment, in which cgroups.
 * {@code user} null means "as the mom itself"; null stdout or stderr keep the starter's own.
 *
 * @param script a job script the command gets as a file argument it can read (a private copy in
 *     memory), or null; the process's stdin is then /dev/null
 * @param append add to existing output files instead of truncating them
 * @param searchPath look the command up in the environment's PATH
 * @param hostname a UTS namespace with this host name, or null for the node's own
 * @param container the container image the process runs in, or null for the host
 * @param sessionJobId the job id the process's session is tagged with, or null for none
 * @param terminal a pseudo-terminal's slave device that becomes the process's controlling terminal
 *     and its stdin, stdout and stderr (an interactive job), or null; stdout and stderr are then
 *     null
 * @param limits the resource limits and nice value the process starts with
 */
public record StartSpec(
    UserInfo user,
    int gid,
    Path workingDirectory,
    byte[] script,
    Path stdout,
    Path stderr,
    boolean joinStderr,
    String umask,
    List<Path> cgroupProcs,
    Path statusFile,
    String argv0,
    List<String> command,
    Map<String, String> environment,
    boolean append,
    boolean searchPath,
    String hostname,
    ContainerSpec container,
    SessionJobId sessionJobId,
    Path terminal,
    ProcessLimits limits) {
  public StartSpec {
    cgroupProcs = List.copyOf(cgroupProcs);
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
  }

  /**
   * This spec on the terminal {@code slave}, with the client's terminal type ({@code TERM}); a type
   * that is no terminal name becomes {@code dumb}.
   */
  public StartSpec onTerminal(Path slave, String term) {
    Map<String, String> env = new HashMap<>(environment);
    env.put("TERM", term.matches("[A-Za-z0-9][A-Za-z0-9._+-]{0,63}") ? term : "dumb");
    return new StartSpec(
        user,
        gid,
        workingDirectory,
        script,
        null,
        null,
        false,
        umask,
        cgroupProcs,
        statusFile,
        argv0,
        command,
        env,
        append,
        searchPath,
        hostname,
        container,
        sessionJobId,
        slave,
        limits);
  }

  /** This spec, adding to its output files instead of replacing them. */
  public StartSpec appending() {
    return new StartSpec(
        user,
        gid,
        workingDirectory,
        script,
        stdout,
        stderr,
        joinStderr,
        umask,
        cgroupProcs,
        statusFile,
        argv0,
        command,
        environment,
        true,
        searchPath,
        hostname,
        container,
        sessionJobId,
        terminal,
        limits);
  }

  /**
   * {@code cat} started as {@code user}, writing its stdin to {@code file}, which the starter opens
   * as the user without following a link: how job output reaches a user's file, never as root.
   *
   * @param append add to the file instead of replacing it
   */
  public static StartSpec catTo(
      UserInfo user, int gid, Path file, String umask, boolean append, Path statusFile) {
    return helper(
        user, gid, Path.of("/"), file, null, true, umask, append, statusFile, List.of("/bin/cat"));
  }

  /**
   * {@code sh} started as {@code user}, adding {@code line} to the end of {@code file} with the
   * user's permissions: how the mom's notices reach a job's stderr, never as root.
   */
  public static StartSpec appendLine(
      UserInfo user, int gid, Path file, String line, Path statusFile) {
    return helper(
        user,
        gid,
        null,
        null,
        null,
        false,
        null,
        false,
        statusFile,
        List.of("/bin/sh", "-c", "printf '%s\\n' \"$1\" >> \"$2\"", "sh", line, file.toString()));
  }

  /**
   * {@code cat} started as {@code user}, reading {@code file} with the user's permissions to its
   * stdout (a pipe, with {@link Launcher#startPiped}).
   */
  public static StartSpec catFrom(UserInfo user, int gid, Path file, Path statusFile) {
    return helper(
        user,
        gid,
        Path.of("/"),
        null,
        Path.of("/dev/null"),
        false,
        null,
        false,
        statusFile,
        List.of("/bin/cat", "--", file.toString()));
  }

  /**
   * A small program the mom runs as {@code user} for itself, not as a job: no script, cgroup,
   * terminal, container or limits, and only PATH in its environment.
   */
  private static StartSpec helper(
      UserInfo user,
      int gid,
      Path workingDirectory,
      Path stdout,
      Path stderr,
      boolean joinStderr,
      String umask,
      boolean append,
      Path statusFile,
      List<String> command) {
    return new StartSpec(
        user,
        gid,
        workingDirectory,
        null,
        stdout,
        stderr,
        joinStderr,
        umask,
        List.of(),
        statusFile,
        null,
        command,
        Map.of("PATH", "/usr/bin:/bin"),
        append,
        false,
        null,
        null,
        null,
        null,
        ProcessLimits.NONE);
  }
}
