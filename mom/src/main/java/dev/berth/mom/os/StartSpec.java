package dev.berth.mom.os;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How to start one job process: as whom, where, with which files and environment, in which cgroups.
 * {@code user} null means "as the mom itself".
 */
public record StartSpec(
    UserInfo user,
    int gid,
    Path workingDirectory,
    Path stdin,
    Path stdout,
    Path stderr,
    boolean joinStderr,
    String umask,
    List<Path> cgroupProcs,
    Path statusFile,
    String argv0,
    List<String> command,
    Map<String, String> environment) {
  public StartSpec {
    cgroupProcs = List.copyOf(cgroupProcs);
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
  }
}
