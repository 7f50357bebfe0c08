package dev.berth.mom.os;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How to start one job process: as whom, where, with which files and environment, in which cgroups.
 * {@code user} null means "as the mom itself"; null stdout or stderr keep the starter's own.
 *
 * @param script a job script the command gets as a file argument it can read (it may be where the
 *     owner cannot read it); the process's stdin is then /dev/null
 * @param append add to existing output files instead of truncating them
 * @param searchPath look the command up in the environment's PATH
 * @param hostname a UTS namespace with this host name, or null for the node's own
 */
public record StartSpec(
    UserInfo user,
    int gid,
    Path workingDirectory,
    Path script,
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
    String hostname) {
  public StartSpec {
    cgroupProcs = List.copyOf(cgroupProcs);
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
  }
}
