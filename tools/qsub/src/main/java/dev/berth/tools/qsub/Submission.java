package dev.berth.tools.qsub;

import com.google.protobuf.ByteString;
import dev.berth.client.Getopt;
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
  /** What to send, and whether qsub should keep the job id to itself ({@code -z}). */
  record Prepared(SubmitJob request, boolean quiet) {}

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
    if (diagnostics.hasErrors()) {
      return Optional.empty();
    }
    SubmitJob request =
        SubmitJob.newBuilder()
            .addAllAttributes(
                AttributeMapper.forSubmit(options, script.defaultName(), ctx, cmd.args()))
            .setScript(ByteString.copyFrom(script.bytes()))
            .build();
    return Optional.of(new Prepared(request, options.quiet()));
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
