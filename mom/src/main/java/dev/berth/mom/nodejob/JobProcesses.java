package dev.berth.mom.nodejob;

import dev.berth.mom.os.ProcessUsage;
import dev.berth.mom.os.ProcessUsage.Sample;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A job's processes on this node, shared by the actors that start them and the one that polls them:
 * the sessions of its script and its tasks (each starter makes one), its cgroups here, and the CPU
 * time of its tasks that have ended, which /proc no longer shows.
 */
public final class JobProcesses {
  private final Set<Long> sessions = ConcurrentHashMap.newKeySet();
  private final AtomicLong endedCpuMicros = new AtomicLong();
  private volatile List<Path> cgroupProcs = List.of();

  /** The live set of sessions, which the task manager also reads to admit the job's processes. */
  public Set<Long> sessions() {
    return sessions;
  }

  public void cgroups(List<Path> procs) {
    cgroupProcs = List.copyOf(procs);
  }

  /** A task here has ended after using {@code cpuMicros} of CPU time. */
  public void ended(long session, long cpuMicros) {
    sessions.remove(session);
    endedCpuMicros.addAndGet(cpuMicros);
  }

  /** What the job's processes here use now, the tasks that have ended included. */
  Sample usage(ProcessUsage proc) {
    Sample live = proc.of(Set.copyOf(sessions), cgroupProcs);
    return live.plus(new Sample(endedCpuMicros.get() / 1_000_000, 0, 0));
  }
}
