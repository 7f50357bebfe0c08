package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.core.ControlCharacters;
import dev.berth.core.JobIds;
import dev.berth.proto.AlterJob;
import dev.berth.proto.Attribute;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.util.List;
import java.util.Optional;

/**
 * {@code qalter [options] job_id...}: changes attributes of queued jobs. Takes Torque's qalter
 * flags ({@code -a -A -c -e -h -j -k -l -m -M -N -o -p -r -S -t -W}), reads them exactly as qsub
 * does (same checks, same attribute names) and sends one AlterJob per job id. {@code -h} takes a
 * hold list here ({@code u}, {@code o}, {@code s} or {@code n}).
 *
 * <p>Exit status: 0 when every job was altered; 2 for a usage problem (nothing is sent); 1 when the
 * server cannot be reached; otherwise the PBSE code % 256 of the last job that failed.
 */
public final class Qalter {
  private static final String PROGRAM = "qalter";

  private Qalter() {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess(PROGRAM, args)));
  }

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER);
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector) {
    Getopt.Result cmd;
    try {
      cmd = Getopt.parse(QsubFlags.QALTER, inv.args());
    } catch (Getopt.UsageException e) {
      return usage(inv, e.getMessage());
    }
    Optional<String> longOption =
        cmd.options().stream().filter(o -> o.is('-')).map(Getopt.Option::value).findFirst();
    if (longOption.isPresent()) {
      return VersionInfo.answer(inv, longOption.get(), QsubFlags.QALTER_USAGE);
    }
    if (cmd.operands().isEmpty()) {
      return usage(inv, "no job id given");
    }
    Diagnostics diagnostics = new Diagnostics();
    List<Attribute> attributes = attributes(cmd, ctx, diagnostics);
    diagnostics.printWarnings(PROGRAM, inv.err());
    if (diagnostics.hasErrors()) {
      diagnostics.printErrors(PROGRAM, inv.err());
      return ExitCodes.USAGE;
    }
    if (attributes.isEmpty()) {
      return usage(inv, "nothing to change: give at least one option");
    }
    return alter(inv, connector, cmd.operands(), attributes);
  }

  private static List<Attribute> attributes(
      Getopt.Result cmd, SubmitContext ctx, Diagnostics diagnostics) {
    for (String id : cmd.operands()) {
      try {
        JobIds.canonical(id, "server");
      } catch (BadValueException e) {
        diagnostics.error(Diagnostics.COMMAND_LINE, e.getMessage());
      }
    }
    JobOptions options = new JobOptions(ctx);
    Submission.apply(Submission.commandLine(cmd.options()), options, diagnostics);
    return AttributeMapper.forAlter(options);
  }

  private static int alter(
      Invocation inv, Connector connector, List<String> ids, List<Attribute> attrs) {
    int status = ExitCodes.OK;
    try (ServerConnection server = connector.connect(inv)) {
      for (String id : ids) {
        AlterJob alter = AlterJob.newBuilder().setJobId(id).addAllAttributes(attrs).build();
        Response response = server.call(Request.newBuilder().setAlter(alter));
        if (response.hasError()) {
          inv.error(
              "cannot alter job "
                  + ControlCharacters.escape(id)
                  + ": "
                  + ControlCharacters.escape(response.getError().getMessage()));
          status = ExitCodes.of(response.getError());
        }
      }
    } catch (ServerUnavailableException e) {
      inv.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
    return status;
  }

  private static int usage(Invocation inv, String message) {
    inv.error(message);
    inv.err().println(QsubFlags.QALTER_USAGE);
    return ExitCodes.USAGE;
  }
}
