package dev.berth.tools.qsub;

import com.google.protobuf.ByteString;
import dev.berth.client.Getopt;
import dev.berth.core.AttributeNames;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.SubmitJob;
import dev.berth.tools.qsub.DirectiveReader.Located;
import dev.berth.tools.qsub.DirectiveScanner.ScannedScript;
import java.util.List;
import java.util.Optional;

/**
 * Builds the SubmitJob request for a command line and a script, without any I/O: scans the
 * directives, applies them and then the command line, and maps the result to attributes. Every
 * problem and warning goes to the {@link Diagnostics}; the request is absent if there was an error.
 */
final class Submission {
  /**
   * What to send; whether qsub should keep the job id to itself ({@code -z}); whether the job is
   * interactive ({@code -I}), and then whether it runs a command ({@code -x}) rather than a login
   * shell.
   */
  record Prepared(SubmitJob request, boolean quiet, boolean interactive, boolean runsCommand) {}

  private Submission() {}

  static Optional<Prepared> prepare(
      QsubCommandLine cmd, JobScript script, SubmitContext ctx, Diagnostics diagnostics) {
    String prefix = cmd.prefix(ctx.env());
    ScannedScript scanned;
    try {
      scanned = DirectiveScanner.scan(script.bytes(), prefix);
    } catch (QsubException e) {
      diagnostics.error(Diagnostics.COMMAND_LINE, e.getMessage());
      return Optional.empty();
    }
    JobOptions options = new JobOptions(ctx);
    apply(DirectiveReader.read(scanned, prefix, diagnostics), options, diagnostics);
    apply(commandLine(cmd.options()), options, diagnostics);
    if (options.interactive()) {
      checkInteractive(options, cmd, script, diagnostics);
    }
    if (diagnostics.hasErrors()) {
      return Optional.empty();
    }
    SubmitJob.Builder request =
        SubmitJob.newBuilder()
            .addAllAttributes(
                AttributeMapper.forSubmit(options, script.defaultName(), ctx, cmd.args()));
    if (!options.interactive()) { // an interactive job's script is its terminal: none is sent
      request.setScript(ByteString.copyFrom(script.bytes()));
    }
    return Optional.of(
        new Prepared(
            request.build(), options.quiet(), options.interactive(), options.runsCommand()));
  }

  /**
   * Torque's rules for {@code -I}: no array, and {@code -x} needs its command. A command that names
   * a file here is sent as its absolute path, since it runs in the job's working directory.
   */
  private static void checkInteractive(
      JobOptions options, QsubCommandLine cmd, JobScript script, Diagnostics diagnostics) {
    if (options.attributes().containsKey(AttributeNames.JOB_ARRAY_REQUEST)) {
      diagnostics.error(Diagnostics.COMMAND_LINE, "interactive job can not be job array.");
    }
    if (!options.runsCommand()) {
      return;
    }
    if (cmd.operands().isEmpty()) {
      diagnostics.error(Diagnostics.COMMAND_LINE, "'-x' used without a script specified");
      return;
    }
    String command = cmd.operands().get(0);
    int at = ControlCharacters.find(command);
    if (at >= 0) {
      diagnostics.error(
          Diagnostics.COMMAND_LINE,
          "-x: the command holds the control character "
              + ControlCharacters.escape(command.charAt(at))
              + "; it may hold no control characters, newlines or terminal escapes");
    } else if (command.isBlank()) {
      diagnostics.error(Diagnostics.COMMAND_LINE, "'-x' used without a script specified");
    } else if (script.commandFile() != null) {
      options.command("'" + script.commandFile().toString().replace("'", "'\\''") + "'");
    } else {
      options.command(command);
    }
  }

  /** Applies options in order; each problem is recorded with its line and the rest go on. */
  static void apply(List<Located> located, JobOptions options, Diagnostics diagnostics) {
    for (Located l : located) {
      try {
        options.apply(l.option()).forEach(w -> diagnostics.warn(l.line(), w));
      } catch (QsubException e) {
        diagnostics.error(l.line(), e.getMessage());
      }
    }
  }

  /** Command-line options, located at line 0. */
  static List<Located> commandLine(List<Getopt.Option> options) {
    return options.stream().map(o -> new Located(Diagnostics.COMMAND_LINE, o)).toList();
  }
}
