package dev.berth.tools.tracejob;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.TraceJob;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.ServerNames;
import dev.berth.tools.format.JsonWriter;
import dev.berth.tools.qstat.JobDocuments;
import java.time.ZoneId;
import java.util.Optional;

/**
 * {@code tracejob [-a] [-s] [-w columns] [-F json] job_identifier...}: a job's history, from the
 * server's journal rather than from log files on this host, so it is complete wherever it runs.
 * {@code -a} leaves out the accounting records, {@code -s} the server lines; Torque's {@code -l -m
 * -n -p -f -c -v -z} are accepted and change nothing.
 */
public final class Tracejob {
  private static final String USAGE =
      "usage: tracejob [-a|s|l|m|v] [-w size] [-p path] [-n days] [-f filter_type] [-F json]"
          + " job_identifier...\n"
          + "   -w : number of columns of your terminal (default: no wrapping)\n"
          + "   -a : don't show accounting records\n"
          + "   -s : don't show server lines\n"
          + "   -F json : the events as JSON\n";

  private Tracejob() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    boolean accounting = true;
    boolean server = true;
    boolean json = false;
    int columns = 0;
    try {
      parsed = Getopt.parse("zvamslw:p:n:f:c:F:", invocation.args());
      for (Getopt.Option option : parsed.options()) {
        switch (option.name()) {
          case 'a' -> accounting = false;
          case 's' -> server = false;
          case 'w' -> columns = columns(option.value());
          case 'F' -> json = jsonFormat(option.value());
          default -> {
            // -z -v -m -l -p -n -f -c: about log files Berth does not read
          }
        }
      }
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(USAGE);
      return ExitCodes.USAGE;
    }
    TraceFormat.Style style = new TraceFormat.Style(server, accounting, columns);
    try (ServerConnection transport = context.connector().connect(invocation)) {
      return trace(invocation, context, transport, parsed, style, json);
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  private static int trace(
      Invocation invocation,
      CliContext context,
      ServerConnection transport,
      Getopt.Result parsed,
      TraceFormat.Style style,
      boolean json)
      throws ServerUnavailableException {
    ServerNames names = new ServerNames(transport);
    ZoneId zone = invocation.zone();
    JsonWriter document = null;
    if (json) {
      document =
          JobDocuments.header(names.name(), context.version().get(), context.nowSeconds())
              .beginObject("Jobs");
    }
    int status = ExitCodes.OK;
    for (String text : parsed.operands()) {
      String id;
      try {
        id = names.canonical(text);
      } catch (BadValueException e) {
        invocation.err().println("tracejob: illegally formed job identifier: " + text);
        status = 1;
        continue;
      }
      Response response =
          transport.call(Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId(id)));
      Optional<Error> failure = Replies.failure(response, Response.BodyCase.TRACE);
      if (failure.isPresent()) {
        invocation.err().println(ErrorText.forJob("tracejob", failure.get(), id));
        status = ExitCodes.of(failure.get());
      } else if (document != null) {
        TraceFormat.json(document, id, response.getTrace().getEventsList(), zone);
      } else {
        invocation
            .out()
            .print(TraceFormat.text(id, response.getTrace().getEventsList(), zone, style));
      }
    }
    if (document != null) {
      invocation.out().print(document.endObject().endObject());
    }
    return status;
  }

  private static int columns(String value) throws Getopt.UsageException {
    try {
      int columns = Integer.parseInt(value);
      if (columns < 0) {
        throw new NumberFormatException(value);
      }
      return columns;
    } catch (NumberFormatException e) {
      throw new Getopt.UsageException("illegal -w value '" + value + "'");
    }
  }

  private static boolean jsonFormat(String value) throws Getopt.UsageException {
    if (!value.equals("json")) {
      throw new Getopt.UsageException("-F takes 'json', not '" + value + "'");
    }
    return true;
  }
}
