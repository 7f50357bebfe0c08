package dev.berth.tools.qsub;

import com.google.protobuf.ByteString;
import dev.berth.client.Connector;
import dev.berth.client.GnuOptions;
import dev.berth.client.Invocation;
import dev.berth.core.ControlCharacters;
import dev.berth.core.JobIds;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code sbatch [options] [script]}: submits a batch script as Slurm's sbatch does, with its {@code
 * #SBATCH} directives, the {@code SBATCH_*} variables and the command line ({@link SbatchJob}), to
 * the same server and queue as qsub's jobs; the job runs as Slurm runs a batch job (its SLURM_*
 * variables, its output file names). Prints {@code Submitted batch job N}, or {@code N} with {@code
 * --parsable}. Whatever it does not honour yet it refuses by name.
 *
 * <p>Exit status, as Slurm's sbatch: 0 on success, 255 for a bad option or value, 1 otherwise.
 */
public final class Sbatch {
  private Sbatch() {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess("sbatch", args)));
  }

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER);
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector) {
    try {
      GnuOptions.Parsed cmd = SbatchOptions.parse(inv.args());
      OptionalInt answered = SbatchOptions.answered(inv, cmd, USAGE);
      if (answered.isPresent()) {
        return answered.getAsInt();
      }
      Prepared prepared = prepare(inv, ctx, cmd);
      List<String> warnings = new ArrayList<>();
      SbatchJob.Input input =
          new SbatchJob.Input(
              SbatchJob.Command.SBATCH,
              prepared.directives(),
              cmd.options(),
              ctx,
              prepared.name(),
              inv.args(),
              null);
      Map<String, String> values = SbatchJob.merged(input);
      List<Attribute> attributes = SbatchJob.attributes(input, values, warnings);
      warnings.forEach(w -> inv.err().println("sbatch: warning: " + w));
      try {
        ContainerChecks.check(attributes, inv.env(), inv.origin().files());
        OutputChecks.check(attributes, ctx, inv.origin().files());
      } catch (QsubException e) {
        throw SbatchException.failed(e.getMessage());
      }
      SubmitJob job =
          SubmitJob.newBuilder()
              .addAllAttributes(attributes)
              .setScript(ByteString.copyFrom(prepared.script()))
              .build();
      boolean parsable = values.containsKey("parsable");
      boolean quiet = values.containsKey("quiet");
      return Qsub.send(
          inv, connector, job, (server, response) -> answer(inv, response, parsable, quiet));
    } catch (SbatchException e) {
      inv.err().println(e.getMessage());
      return e.exit();
    }
  }

  static final String USAGE =
      "Usage: sbatch [OPTIONS...] script [args...]\n"
          + "Berth's sbatch: `sbatch --help` and docs/slurm.md say which options it honours.";

  /** The script to send, its default job name, and its directives' options. */
  private record Prepared(byte[] script, String name, List<GnuOptions.Given> directives) {}

  private static Prepared prepare(Invocation inv, SubmitContext ctx, GnuOptions.Parsed cmd)
      throws SbatchException {
    Optional<String> wrap =
        cmd.options().stream()
            .filter(g -> g.option().name().equals("wrap"))
            .map(GnuOptions.Given::value)
            .reduce((first, last) -> last);
    byte[] script;
    String name;
    String shown;
    if (wrap.isPresent()) {
      if (!cmd.operands().isEmpty()) {
        throw SbatchException.failed("Script arguments not permitted with --wrap option");
      }
      script =
          ("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + wrap.get() + "\n")
              .getBytes(StandardCharsets.UTF_8);
      name = "wrap";
      shown = "--wrap";
    } else {
      if (cmd.operands().size() > 1) {
        throw SbatchException.failed(
            "arguments to the batch script ("
                + ControlCharacters.escape(
                    String.join(" ", cmd.operands().subList(1, cmd.operands().size())))
                + ") are not supported by Berth's sbatch yet");
      }
      Optional<String> path = cmd.operands().stream().findFirst();
      JobScript read;
      try {
        read = JobScript.read(path, inv);
      } catch (QsubException e) {
        throw SbatchException.failed("Unable to open file " + path.orElse("(standard input)"));
      }
      script = read.bytes();
      name = path.isPresent() ? read.defaultName() : "sbatch";
      shown = path.orElse("(standard input)");
    }
    SbatchScript.check(script, shown);
    boolean ignorePbs =
        ctx.env().containsKey("SBATCH_IGNORE_PBS")
            || cmd.options().stream().anyMatch(g -> g.option().name().equals("ignore-pbs"))
            || SbatchOptions.parse(SbatchScript.directives(script, shown, true)).options().stream()
                .anyMatch(g -> g.option().name().equals("ignore-pbs"));
    GnuOptions.Parsed directives =
        SbatchOptions.parse(SbatchScript.directives(script, shown, ignorePbs));
    if (!directives.operands().isEmpty()) {
      throw SbatchException.badOption(
          "Invalid directive found in batch script: " + directives.operands().get(0));
    }
    return new Prepared(script, name, directives.options());
  }

  private static int answer(Invocation inv, Response response, boolean parsable, boolean quiet) {
    switch (response.getBodyCase()) {
      case SUBMITTED -> {
        long number = JobIds.number(response.getSubmitted().getJobId());
        if (parsable) {
          inv.out().println(number);
        } else if (!quiet) {
          inv.out().println("Submitted batch job " + number);
        }
        return 0;
      }
      case ERROR -> {
        String why = ControlCharacters.escape(response.getError().getMessage());
        if (response.getError().getCode() == Error.Code.BAD_ARRAY_REQUEST) {
          // Slurm's words, then what is wrong with it
          inv.err()
              .println(
                  "sbatch: error: Batch job submission failed: Invalid job array specification");
          inv.err().println("sbatch: error: " + why);
        } else {
          inv.err().println("sbatch: error: Batch job submission failed: " + why);
        }
        return SbatchException.FAILED;
      }
      default -> {
        inv.err()
            .println("sbatch: error: unexpected reply from the server: " + response.getBodyCase());
        return SbatchException.FAILED;
      }
    }
  }
}
