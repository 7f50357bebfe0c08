package dev.berth.tools.jobctl;

import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.proto.Request;
import dev.berth.proto.RunJobNow;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Usage;
import java.util.List;

/**
 * {@code qrun [-a] [-H host[+host...]] job_identifier...}: starts queued or held jobs now, whatever
 * their priority, the run limits and fair share (operators and managers only; the server checks).
 * {@code -H n1+n2} names the job's nodes in order, the first its mother superior; without it the
 * job goes wherever it fits. {@code -a} (Torque's asynchronous run) is accepted and changes
 * nothing: Berth's server answers once the start is durable in its journal either way, and the
 * mom's launch follows, so a launch that fails shows in the job (qstat, tracejob), not in qrun's
 * status.
 */
public final class Qrun {
  private static final String USAGE = "usage: qrun [-a] [-H host] job_identifier...\n";

  private Qrun() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    List<String> hosts = List.of();
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("aH:", invocation.args());
      for (Getopt.Option option : parsed.options()) {
        if (option.is('H')) {
          hosts = hosts(option.value());
        }
      }
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    List<String> chosen = hosts;
    return JobRequests.sendEach(
        "qrun",
        invocation,
        context,
        parsed.operands(),
        jobId ->
            Request.newBuilder()
                .setRunJob(RunJobNow.newBuilder().setJobId(jobId).addAllHosts(chosen)));
  }

  /** {@code n1+n2} as its node names; an empty value or name is Torque's illegal -H value. */
  private static List<String> hosts(String value) throws Getopt.UsageException {
    List<String> hosts = List.of(value.strip().split("\\+", -1));
    if (hosts.stream().anyMatch(String::isBlank)) {
      throw new Getopt.UsageException("illegal -H value");
    }
    return hosts.stream().map(String::strip).toList();
  }
}
