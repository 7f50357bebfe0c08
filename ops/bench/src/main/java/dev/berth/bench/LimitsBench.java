package dev.berth.bench;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How long after a job crosses a limit it is killed, for each job-wide limit the moms poll (cput,
 * vmem, and mem without cgroups): ROUNDS jobs each, one at a time, as berth-alice on one mom with
 * the default heartbeat (10 s). The per-process limits (pcput, file, pvmem) are not measured: the
 * kernel stops the process at the limit itself, at its next tick, and what follows (the job's end,
 * its obit) is the same path the polled limits take. Each job writes the moment it crosses its
 * limit (the end of its CPU time, of its allocation or of its write), and the time until the server
 * has the job completed is the latency; it prints the median and the largest. It fails unless every
 * job ended for its limit.
 */
final class LimitsBench {
  private static final int ROUNDS = Integer.getInteger("berth.bench.limitRounds", 10);
  private static final int HEARTBEAT = 10;

  private LimitsBench() {}

  private record Case(String name, String resources, boolean cgroups, String script, int exit) {}

  static void run(Path root) throws Exception {
    // each script writes the epoch seconds at which it crossed its limit to the file "crossed"
    String crossedAt = "import time; open('crossed.' + __import__('os').environ['PBS_JOBID'], 'w')";
    List<Case> cases =
        List.of(
            new Case(
                "cput=2 (polled)",
                "cput=2",
                true,
                "python3 -c \"import time, os\nt = time.process_time\nwhile t() < 2: pass\n"
                    + crossedAt
                    + ".write(str(time.time()))\nwhile True: pass\"\n",
                -12),
            new Case(
                "vmem=300mb (polled)",
                "vmem=300mb",
                true,
                "for i in 1 2; do python3 -c \"import time\nb = bytearray(200 << 20)\n"
                    + crossedAt
                    + ".write(str(time.time()))\ntime.sleep(600)\" & done\nwait\n",
                -10),
            new Case(
                "mem=100mb (polled, no cgroup)",
                "mem=100mb",
                false,
                "python3 -c \"import time\nb = bytearray(300 << 20)\n"
                    + crossedAt
                    + ".write(str(time.time()))\ntime.sleep(600)\"\n",
                -10));
    try (MomCluster cluster = new MomCluster(root, Trust.TLS)) {
      if (cluster.user() == null) {
        throw new IllegalStateException("the limits benchmark needs the users of ops/test");
      }
      cluster.start();
      // the cluster's node_check_rate is for moms that report every second
      cluster.qmgr("set server node_check_rate = " + 3 * HEARTBEAT);
      cluster.startMom("a", "0", HEARTBEAT);
      System.out.printf(
          "%nlimits: %d jobs each, one at a time, on one mom with --heartbeat %d: seconds from"
              + " crossing the limit to the job completed%n",
          ROUNDS, HEARTBEAT);
      System.out.printf("%-32s %8s %8s%n", "limit", "median", "max");
      for (Case c : cases) {
        cluster.qmgr("set server cgroup_enable = " + (c.cgroups() ? "True" : "False"));
        List<Double> latencies = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
          latencies.add(once(cluster, c));
        }
        Collections.sort(latencies);
        System.out.printf(
            "%-32s %8.2f %8.2f%n",
            c.name(), latencies.get(latencies.size() / 2), latencies.get(latencies.size() - 1));
      }
    }
  }

  private static double once(MomCluster cluster, Case c) throws Exception {
    String id = cluster.submit("cd $PBS_O_WORKDIR\n" + c.script(), "-l", c.resources());
    Job job;
    while ((job = cluster.job(id)).getState() != JobState.COMPLETED) {
      Thread.sleep(50);
    }
    double done = System.currentTimeMillis() / 1000.0;
    if (job.getExitStatus() != c.exit()) {
      throw new IllegalStateException(
          id
              + " ("
              + c.name()
              + ") ended with "
              + job.getExitStatus()
              + ": "
              + job.getExitReason()
              + "\n"
              + Files.readString(cluster.momLog("a")));
    }
    Path crossed = cluster.work().resolve("crossed." + id);
    double at = Double.parseDouble(Files.readString(crossed).strip());
    Files.delete(crossed);
    return done - at;
  }
}
