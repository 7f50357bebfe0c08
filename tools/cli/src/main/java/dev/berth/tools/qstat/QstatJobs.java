package dev.berth.tools.qstat;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobHistory;
import dev.berth.proto.JobList;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatQueues;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.ServerNames;
import dev.berth.tools.format.AttrText;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * qstat for jobs. Each operand is one request, as in Torque: a job id ({@code 12}, {@code 12.srv},
 * {@code 12[]}) asks for that job, a destination ({@code batch}, {@code batch@srv}, {@code @srv})
 * lists the jobs of that queue (or all). Jobs print in operand order under one header; errors go to
 * stderr after the listing and the exit status is the first error's.
 */
final class QstatJobs {
  private final Invocation invocation;
  private final CliContext context;
  private final QstatOptions options;
  private final ServerConnection transport;
  private final ServerNames names;
  private final List<Job> shown = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();
  private String server = "";
  private int status = ExitCodes.OK;

  QstatJobs(
      Invocation invocation, CliContext context, QstatOptions options, ServerConnection transport) {
    this.invocation = invocation;
    this.context = context;
    this.options = options;
    this.transport = transport;
    this.names = new ServerNames(transport);
  }

  int run() throws ServerUnavailableException {
    if (options.history()) {
      history();
      print();
      errors.forEach(invocation.err()::println);
      return status;
    }
    if (options.operands().isEmpty()) {
      list("");
    }
    for (String operand : options.operands()) {
      if (isJobId(operand)) {
        one(operand);
      } else {
        int at = operand.indexOf('@');
        list(at < 0 ? operand : operand.substring(0, at));
      }
    }
    print();
    for (String error : errors) {
      invocation.err().println(error);
    }
    return status;
  }

  /**
   * {@code -H}: finished jobs from the server's accounting files (the last 14 days), of the users
   * given and the job ids given; destinations choose the queues.
   */
  private void history() throws ServerUnavailableException {
    JobHistory.Builder request = JobHistory.newBuilder().addAllUsers(options.users());
    Set<String> queues = new java.util.HashSet<>();
    for (String operand : options.operands()) {
      if (isJobId(operand)) {
        try {
          request.addJobIds(names.canonical(operand));
        } catch (BadValueException e) {
          fail("qstat: illegally formed job identifier: " + operand, 1);
          return;
        }
      } else {
        int at = operand.indexOf('@');
        String queue = at < 0 ? operand : operand.substring(0, at);
        if (!queue.isEmpty()) {
          queues.add(queue);
        }
      }
    }
    Response response = transport.call(Request.newBuilder().setJobHistory(request));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.JOBS);
    if (failure.isPresent()) {
      fail(ErrorText.general("qstat", failure.get()), ExitCodes.of(failure.get()));
      return;
    }
    for (Job job : response.getJobs().getJobsList()) {
      if (queues.isEmpty() || queues.contains(job.getQueue())) {
        shown.add(job);
      }
    }
  }

  /** Torque's rule: an operand whose first non-blank character is a digit is a job id. */
  static boolean isJobId(String operand) {
    String trimmed = operand.strip();
    return !trimmed.isEmpty() && Character.isDigit(trimmed.charAt(0));
  }

  private void one(String operand) throws ServerUnavailableException {
    String id;
    try {
      id = names.canonical(operand);
    } catch (BadValueException e) {
      fail("qstat: illegally formed job identifier: " + operand, 1);
      return;
    }
    Optional<JobList> reply = stat(StatJobs.newBuilder().addJobIds(id), id);
    // An id names its job whatever its state, so -i/-r do not apply (as in Torque).
    reply.ifPresent(
        list -> add(list, new JobFilter(options.users(), Set.of(), options.noCompleted(), "")));
  }

  private void list(String queue) throws ServerUnavailableException {
    if (!queue.isEmpty() && !queueExists(queue)) {
      return;
    }
    Optional<JobList> reply = stat(StatJobs.newBuilder(), null);
    reply.ifPresent(
        list ->
            add(
                list,
                new JobFilter(options.users(), options.states(), options.noCompleted(), queue)));
  }

  /** A destination operand must name a queue (Torque answers PBSE_UNKQUE otherwise). */
  private boolean queueExists(String queue) throws ServerUnavailableException {
    Response response =
        transport.call(Request.newBuilder().setStatQueues(StatQueues.newBuilder().addNames(queue)));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.QUEUES);
    failure.ifPresent(error -> fail(ErrorText.general("qstat", error), ExitCodes.of(error)));
    return failure.isEmpty();
  }

  private Optional<JobList> stat(StatJobs.Builder request, String id)
      throws ServerUnavailableException {
    // the tables show no environment: leave it out of the reply, which it may be most of
    request
        .setIncludeSubjobs(options.subjobs())
        .setBrief(!options.full() && options.output() == QstatOptions.Output.TEXT);
    Response response = transport.call(Request.newBuilder().setStatJobs(request));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.JOBS);
    if (failure.isPresent()) {
      Error error = failure.get();
      fail(
          id == null ? ErrorText.general("qstat", error) : ErrorText.forJob("qstat", error, id),
          ExitCodes.of(error));
      return Optional.empty();
    }
    return Optional.of(response.getJobs());
  }

  private void add(JobList list, JobFilter filter) {
    if (server.isEmpty()) {
      server = list.getServer();
    }
    for (Job job : list.getJobsList()) {
      if (filter.accepts(job)) {
        shown.add(job);
      }
    }
  }

  private void fail(String message, int code) {
    errors.add(message);
    if (status == ExitCodes.OK) {
      status = code;
    }
  }

  private void print() throws ServerUnavailableException {
    PrintStream out = invocation.out();
    long now = context.nowSeconds();
    ZoneId zone = invocation.zone();
    int linesize = options.style().oneLine() ? AttrText.NO_FOLD : AttrText.LINESIZE;
    switch (options.output()) {
      case JSON:
        out.print(JobDocuments.json(shown, serverName(), context.version().get(), now, zone));
        return;
      case XML:
        out.print(JobDocuments.xml(shown, now));
        return;
      default:
        break;
    }
    if (shown.isEmpty()) {
      return;
    }
    if (options.full()) {
      for (Job job : shown) { // a job's text at a time, never the whole listing's
        out.print(JobDocuments.full(List.of(job), now, zone, linesize));
      }
    } else if (options.alternate()) {
      Optional<ServerStatus> serverStatus = names.status();
      String name = serverStatus.map(ServerStatus::getName).orElse(serverName());
      String comment =
          serverStatus
              .map(s -> s.getAttributesOrDefault(ServerAttributeNames.COMMENT, ""))
              .orElse("");
      out.print(AltJobTable.header(name, comment, options.style()));
      for (Job job : shown) {
        out.print(AltJobTable.row(job, options.style(), now, zone));
      }
    } else {
      out.print(JobTable.HEADER);
      for (Job job : shown) {
        out.print(JobTable.row(job));
      }
    }
  }

  private String serverName() throws ServerUnavailableException {
    return server.isEmpty() ? names.name() : server;
  }
}
