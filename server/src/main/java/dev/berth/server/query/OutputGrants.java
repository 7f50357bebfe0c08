package dev.berth.server.query;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.server.state.ClusterState;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a mom may deliver a job's output to a submit host: only the job's mother superior, only a
 * stream whose path names that host, and only while the server still has the job. A grant carries
 * what the relay needs to find the file and write it as the owner, and nothing else of the job (its
 * environment and script stay on the server).
 */
public final class OutputGrants {
  private OutputGrants() {}

  public static OutputGrant grant(ClusterState s, String host, OutputCheck check) {
    Optional<Job> found = s.job(check.getJobId());
    if (found.isEmpty()) {
      return refusal("the server has no job " + check.getJobId());
    }
    Job job = found.get();
    if (job.getState() != JobState.RUNNING
        && job.getState() != JobState.EXITING
        && job.getState() != JobState.COMPLETED) {
      return refusal("job " + job.getId() + " has not run");
    }
    if (job.getExecNodesCount() == 0 || !job.getExecNodes(0).getNode().equals(check.getNode())) {
      return refusal(
          "node " + check.getNode() + " is not the mother superior of job " + job.getId());
    }
    String path;
    switch (check.getStream()) {
      case "o" -> path = job.getOutputPath();
      case "e" -> path = job.getErrorPath();
      default -> {
        return refusal("there is no output stream '" + check.getStream() + "'");
      }
    }
    if (job.getKeepFiles().contains(check.getStream())) {
      return refusal("job " + job.getId() + " keeps that stream on its execution host (-k)");
    }
    int colon = path.indexOf(':');
    String target = colon < 0 ? "" : path.substring(0, colon);
    if (!target.toLowerCase(Locale.ROOT).equals(host.toLowerCase(Locale.ROOT))) {
      return refusal(
          "job "
              + job.getId()
              + "'s "
              + (check.getStream().equals("o") ? "stdout" : "stderr")
              + " goes to "
              + (target.isEmpty() ? "its execution host" : "host " + target)
              + ", not to "
              + host);
    }
    Job.Builder owned =
        Job.newBuilder()
            .setId(job.getId())
            .setNumber(job.getNumber())
            .setName(job.getName())
            .setEuser(job.getEuser())
            .setEgroup(job.getEgroup())
            .setJoinPath(job.getJoinPath())
            .setOutputPath(job.getOutputPath())
            .setErrorPath(job.getErrorPath())
            .setArrayParent(job.getArrayParent())
            .setArrayIndex(job.getArrayIndex());
    String umask = job.getExtensionsOrDefault("umask", "");
    if (!umask.isEmpty()) {
      owned.putExtensions("umask", umask);
    }
    return OutputGrant.newBuilder().setJob(owned).build();
  }

  private static OutputGrant refusal(String why) {
    return OutputGrant.newBuilder().setRefusal(why).build();
  }
}
