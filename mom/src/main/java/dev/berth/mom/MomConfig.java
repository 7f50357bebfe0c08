package dev.berth.mom;

import dev.berth.mom.os.ContainerCache;
import dev.berth.mom.os.gpu.GpuMonitor;
import dev.berth.mom.output.OutputCourier;
import dev.berth.mom.output.OutputRoutes;
import dev.berth.mom.terminal.TerminalSettings;
import dev.berth.proto.Gpu;
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
 * @param starter the berth-starter binary; the mom's JNI library is built next to it
 * @param tools the directory holding pbsdsh and pbs_tmrsh, added to the end of every job's PATH and
 *     given to MPI launchers; null when this installation has none
 * @param nodeHostname whether job processes see the node's name as their host name (a UTS namespace
 *     each), so that several moms on one machine look like separate hosts to MPI
 * @param rootJobs whether this node runs jobs whose owner is root; off unless the administrator
 *     says so, whatever the server sends (the server's own rule is acl_roots)
 * @param output which output paths are written in place here, which are delivered to their host
 * @param courier how delivered output reaches its host; null when {@code output} delivers nothing
 * @param gpus the GPUs this mom offers, each given to one job at a time and kept from the others by
 *     the devices cgroup
 * @param containers where jobs' container images are unpacked on this node; null when this node
 *     runs no containers
 * @param gpuMonitor what samples the GPUs' utilisation and memory for resources_used
 * @param sessionJobIdFile where each job process's session is tagged with the job id (Lustre's
 *     jobid_this_session); null for nowhere
 * @param site the site's prologues, epilogues and health check
 * @param terminal where this mom takes interactive sessions (qsub -I); null when it takes none
 * @param metrics the mom's instruments (for Prometheus)
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
    String version,
    Path tools,
    boolean nodeHostname,
    boolean rootJobs,
    OutputRoutes output,
    OutputCourier courier,
    List<Gpu> gpus,
    ContainerCache containers,
    GpuMonitor gpuMonitor,
    Path sessionJobIdFile,
    SiteScripts site,
    TerminalSettings terminal,
    NodeMetrics metrics) {
  public MomConfig {
    cpus = List.copyOf(cpus);
    properties = List.copyOf(properties);
    gpus = List.copyOf(gpus);
  }

  /** A mom without job-side tools and with the machine's host name. */
  public MomConfig(
      String name,
      List<Integer> cpus,
      List<String> properties,
      Path home,
      Path tmpBase,
      Path starter,
      Duration heartbeat,
      Duration resend,
      String version) {
    this(
        name,
        cpus,
        properties,
        home,
        tmpBase,
        starter,
        heartbeat,
        resend,
        version,
        null,
        false,
        false,
        OutputRoutes.inPlace(),
        null,
        List.of(),
        null,
        GpuMonitor.off(),
        null,
        SiteScripts.NONE,
        null,
        NodeMetrics.unscraped(name));
  }

  /** These settings, with job output going where {@code output} says, through {@code courier}. */
  public MomConfig withOutput(OutputRoutes output, OutputCourier courier) {
    return new MomConfig(
        name,
        cpus,
        properties,
        home,
        tmpBase,
        starter,
        heartbeat,
        resend,
        version,
        tools,
        nodeHostname,
        rootJobs,
        output,
        courier,
        gpus,
        containers,
        gpuMonitor,
        sessionJobIdFile,
        site,
        terminal,
        metrics);
  }

  /** These settings, taking interactive sessions as {@code terminal} says. */
  public MomConfig withTerminal(TerminalSettings terminal) {
    return new MomConfig(
        name,
        cpus,
        properties,
        home,
        tmpBase,
        starter,
        heartbeat,
        resend,
        version,
        tools,
        nodeHostname,
        rootJobs,
        output,
        courier,
        gpus,
        containers,
        gpuMonitor,
        sessionJobIdFile,
        site,
        terminal,
        metrics);
  }

  /** The host name job processes get, or null for the machine's own. */
  public String hostname() {
    return nodeHostname ? name : null;
  }

  public Path nativeLibrary() {
    return starter.resolveSibling(dev.berth.mom.os.NativeLibrary.FILE);
  }
}
