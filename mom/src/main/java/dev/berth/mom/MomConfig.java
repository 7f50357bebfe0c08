package dev.berth.mom;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One mom's settings.
 *
 * @param name the node's name (unique in the cluster)
 * @param cpus the CPU ids this mom offers to jobs
 * @param home the mom's own durable directory (job records)
 * @param tmpBase where per-job TMPDIRs are made
 * @param starter the berth-starter binary
 */
public record MomConfig(
    String name,
    List<Integer> cpus,
    List<String> properties,
    Path home,
    Path tmpBase,
    Path starter,
    Duration heartbeat,
    Duration resend,
    String version) {
  public MomConfig {
    cpus = List.copyOf(cpus);
    properties = List.copyOf(properties);
  }
}
