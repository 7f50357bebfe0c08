package dev.berth.daemon;

import com.typesafe.config.ConfigFactory;
import dev.berth.core.BerthVersion;
import dev.berth.core.Hosts;
import dev.berth.core.Sizes;
import dev.berth.mom.MomConfig;
import dev.berth.mom.MomMetrics;
import dev.berth.mom.NodeMetrics;
import dev.berth.mom.job.JobGpus;
import dev.berth.mom.os.ContainerCache;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.gpu.GpuInventory;
import dev.berth.mom.os.gpu.GpuMonitor;
import dev.berth.mom.os.gpu.NvidiaSmi;
import dev.berth.mom.terminal.TerminalSettings;
import dev.berth.proto.Gpu;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.cluster.ClusterPort;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs one mom in the foreground: it joins the server's cluster, registers its node and runs that
 * node's part of jobs. Several may run on one host, each with its own name, CPUs and cgroup root.
 */
@Command(name = "mom", description = "Run a mom (node agent) that joins a server's cluster.")
final class MomCommand implements Callable<Integer> {
  /** Where a Lustre client (2.13 and later) keeps a job id per session. */
  static final String LUSTRE_SESSION_JOBID = "/sys/fs/lustre/jobid_this_session";

  @Mixin HomeOptions home;

  @Mixin CgroupOptions cgroups;

  @Mixin TrustOptions trust;

  @Mixin SiteScriptOptions siteScripts;

  @Mixin OutputOptions output;

  @Mixin MetricsOptions metricsOptions;

  @Option(
      names = "--root-jobs",
      description =
          "Run jobs whose owner is root (still only if the server's acl_roots lets their"
              + " submitter). Off by default.")
  boolean rootJobs;

  @Option(
      names = "--server",
      required = true,
      split = ",",
      paramLabel = "HOST:PORT",
      description =
          "The server's cluster address (berth serve --host/--port); with standby servers, each"
              + " of theirs, comma separated (the mom joins through whichever answers).")
  List<String> server;

  @Option(names = "--name", description = "Node name (default: host name).")
  String name;

  @Option(
      names = "--node-hostname",
      description =
          "Jobs see the node's name as host name (a UTS namespace each), for several moms on one"
              + " machine that MPI must take for separate hosts.")
  boolean nodeHostname;

  @Option(names = "--cpus", paramLabel = "LIST", description = "CPU ids to offer (default: all).")
  String cpus;

  @Option(
      names = "--gpus",
      defaultValue = "auto",
      paramLabel = "auto|none|DEVICE[,DEVICE...]",
      description =
          "GPUs to offer: auto (NVIDIA GPUs in /dev, described by nvidia-smi), none, or device"
              + " files in the order jobs number them. Each is given to one job at a time and"
              + " kept from the others by the devices cgroup, which this host must have.")
  String gpus;

  @Option(
      names = "--gpu-sampling",
      defaultValue = "30",
      paramLabel = "SECONDS",
      description =
          "Seconds between samples of NVIDIA GPUs' utilisation and memory (nvidia-smi) while jobs"
              + " hold them, for the jobs' resources_used; 0 = none.")
  int gpuSampling;

  @Option(
      names = "--nvidia-smi",
      paramLabel = "PATH",
      description = "The nvidia-smi to ask about GPUs (default: from the PATH, else /usr/bin).")
  Path nvidiaSmi;

  @Option(
      names = "--session-jobid",
      defaultValue = "auto",
      paramLabel = "auto|none|FILE",
      description =
          "Where each job process's session is tagged with the job id before the job runs: auto"
              + " (Lustre's "
              + LUSTRE_SESSION_JOBID
              + " where a Lustre client is loaded), none, or a file.")
  String sessionJobId;

  @Option(
      names = "--container-cache",
      paramLabel = "DIR",
      description =
          "Where job container images are unpacked, one directory per user (default: below the"
              + " job directory base, which is in /tmp; a disk-backed directory is better).")
  Path containerCache;

  @Option(
      names = "--container-cache-size",
      defaultValue = "16gb",
      paramLabel = "SIZE",
      description = "How much unpacked images may take before the least recently used go.")
  String containerCacheSize;

  @Option(names = "--properties", split = ",", description = "Node properties, comma separated.")
  List<String> properties = List.of();

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address the server reaches this mom at.")
  String host;

  @Option(names = "--port", defaultValue = "0", description = "Cluster (Artery) port; 0 = any.")
  int port;

  @Option(
      names = "--terminal-port",
      defaultValue = "0",
      description =
          "Port on --host where qsub -I attaches to interactive jobs (TLS with this mom's"
              + " credential); 0 = any free port (the server tells qsub which); -1 = no"
              + " interactive jobs here.")
  int terminalPort;

  @Option(
      names = "--heartbeat",
      defaultValue = "10",
      description = "Seconds between status reports to the server.")
  int heartbeat;

  /**
   * Where this mom takes interactive sessions: on --host at --terminal-port, proving itself with
   * its credential. An insecure mom takes none: the permits qsub shows could not be checked.
   */
  private TerminalSettings terminal(DaemonTrust trust, String node) throws java.io.IOException {
    if (terminalPort < -1 || terminalPort > 65535) {
      throw new IllegalArgumentException(
          "--terminal-port: " + terminalPort + " is not a port (0-65535, or -1 for none)");
    }
    return terminalPort == -1 ? null : trust.terminal(node, host, terminalPort);
  }

  @Override
  public Integer call() throws Exception {
    Budgets.mom(ClusterPort.Limits.of(ConfigFactory.load())).checkThisDaemon();
    BerthHome h = home.home();
    h.secure();
    String node = name != null ? name : Hosts.localName();
    List<Integer> cpuIds =
        cpus != null ? NodeFacts.parseCpuList(cpus) : NodeFacts.linux().onlineCpus();
    // What can refuse to start comes first, before anything is made outside the home.
    DaemonTrust daemonTrust = DaemonTrust.of(h, new Identity(Role.MOM, node), trust);
    PrometheusRegistry registry = new PrometheusRegistry();
    NodeMetrics metrics = new MomMetrics(registry).of(node);
    dev.berth.mom.Isolation isolation = cgroups.isolation(h, home.isDefault(), node, metrics);
    if (gpuSampling < 0) {
      throw new IllegalArgumentException("--gpu-sampling: " + gpuSampling + " is below 0");
    }
    Path smi = nvidiaSmi != null ? nvidiaSmi : NvidiaSmi.find();
    List<Gpu> gpuList = GpuInventory.of(gpus, smi);
    // cgroup v2 denies devices through BPF programs, loaded by the native library
    NativeLibrary.load(Installation.starter().resolveSibling(NativeLibrary.FILE));
    if (!gpuList.isEmpty() && !isolation.keepsDevicesApart()) {
      throw new IllegalArgumentException(
          "--gpus: this node has "
              + gpuList.size()
              + " GPUs, but its cgroups cannot keep jobs from each other's ("
              + isolation.describe()
              + "); offer none with --gpus none");
    }
    Path jobTmp = h.jobTmp();
    ContainerCache containers =
        new ContainerCache(
            containerCache != null
                ? containerCache.resolve(node)
                : jobTmp.resolve(".containers").resolve(node),
            Sizes.parseBytes(containerCacheSize));
    MomConfig config =
        new MomConfig(
            node,
            cpuIds,
            properties,
            h.mom(node),
            jobTmp.resolve(node),
            Installation.starter(),
            Duration.ofSeconds(heartbeat),
            Duration.ofSeconds(5),
            BerthVersion.NUMBER,
            Installation.tools(),
            nodeHostname,
            rootJobs,
            output.routes(daemonTrust, node),
            output.courier(daemonTrust, node, h.mom(node)),
            gpuList,
            containers,
            gpuMonitor(gpuList, smi),
            sessionJobIdFile(),
            siteScripts.scripts(SiteScriptOptions.SITE_HOOKS),
            terminal(daemonTrust, node),
            metrics);
    JobFiles.prepareBase(jobTmp);
    JobFiles.prepareBase(config.tmpBase());
    MomProcess mom =
        new MomProcess(
            config,
            isolation,
            ClusterConfig.of(host, port, List.of("mom"), server, server.size() > 1),
            ServerWatch.PATIENCE,
            daemonTrust);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  mom.stop();
                  try {
                    Files.deleteIfExists(jobTmp); // the last mom of this home to stop
                  } catch (java.io.IOException stillInUse) {
                    // another mom of this home, or a job that runs on, still has a directory there
                  }
                }));
    System.out.println(
        "berth: mom "
            + node
            + " (CPUs "
            + cpuIds
            + (gpuList.isEmpty() ? "" : ", " + gpuList.size() + " GPUs")
            + ") joining the server at "
            + String.join(",", server));
    try (MetricsEndpoint endpoint = metricsOptions.start(daemonTrust, host, registry)) {
      mom.run();
    }
    return 0;
  }

  /** The file --session-jobid names: null for none, and for auto on a node without Lustre. */
  private Path sessionJobIdFile() {
    return switch (sessionJobId) {
      case "none" -> null;
      case "auto" ->
          Files.exists(Path.of(LUSTRE_SESSION_JOBID)) ? Path.of(LUSTRE_SESSION_JOBID) : null;
      default -> {
        Path file = Path.of(sessionJobId);
        if (!file.isAbsolute() || !Files.exists(file)) {
          throw new IllegalArgumentException(
              "--session-jobid: " + sessionJobId + " is not an absolute path to an existing file");
        }
        yield file;
      }
    };
  }

  /** Sampling through nvidia-smi where the node has NVIDIA GPUs and sampling is wanted. */
  private GpuMonitor gpuMonitor(List<Gpu> gpuList, Path smi) {
    boolean nvidia = gpuList.stream().anyMatch(g -> g.getMajor() == JobGpus.NVIDIA_MAJOR);
    return nvidia && gpuSampling > 0
        ? GpuMonitor.nvidia(smi, Duration.ofSeconds(gpuSampling))
        : GpuMonitor.off();
  }
}
