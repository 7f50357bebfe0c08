package dev.berth.tools.qsub;

import com.google.protobuf.ByteString;
import dev.berth.client.Connector;
import dev.berth.client.Invocation;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Attribute;
import dev.berth.proto.SubmitJob;
import dev.berth.tools.qsub.session.InteractiveSession;
import dev.berth.tools.qsub.session.Terminal;
import dev.berth.tools.qsub.session.Voice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What salloc and srun outside a job share: an allocation is an interactive job (qsub -I's) with
 * sbatch's options, and the command's terminal session with it ({@link InteractiveSession}) holds
 * it until the command (or shell) there ends, when the job ends and its nodes are free again.
 */
final class Allocation {
  private Allocation() {}

  /** {@code words} as one shell command line that runs them as they are. */
  static String shellWords(List<String> words) {
    List<String> quoted = new ArrayList<>();
    for (String w : words) {
      quoted.add(w.matches("[A-Za-z0-9_@%+=:,./-]+") ? w : "'" + w.replace("'", "'\"'\"'") + "'");
    }
    return String.join(" ", quoted);
  }

  /**
   * Submits the interactive job {@code in} describes and holds its session; the exit status is the
   * command's there.
   *
   * @param allocation whether the command says when it is granted an allocation and gives it up
   *     (salloc), or only when it waits (srun)
   * @param failed how the command says the server refused the job ({@code Job submit/allocate
   *     failed}, {@code Unable to allocate resources})
   */
  static int run(
      Invocation inv,
      Connector connector,
      Terminal terminal,
      SbatchJob.Input in,
      boolean allocation,
      String failed)
      throws SbatchException {
    String program = in.command().program();
    Map<String, String> values = SbatchJob.merged(in);
    List<String> warnings = new ArrayList<>();
    List<Attribute> attributes = SbatchJob.attributes(in, values, warnings);
    warnings.forEach(w -> inv.err().println(program + ": warning: " + w));
    try {
      ContainerChecks.check(attributes, inv.env(), inv.origin().files());
    } catch (QsubException e) {
      throw SbatchException.failed(e.getMessage());
    }
    SubmitJob job =
        SubmitJob.newBuilder().addAllAttributes(attributes).setScript(ByteString.EMPTY).build();
    Voice voice = Voice.slurm(program, allocation, values.containsKey("quiet"));
    return Qsub.send(
        inv,
        connector,
        job,
        (server, response) -> {
          if (response.hasSubmitted()) {
            return new InteractiveSession(
                    response.getSubmitted().getJobId(),
                    inv.in(),
                    inv.out(),
                    inv.err(),
                    Qsub.term(inv),
                    terminal,
                    voice)
                .run(server, () -> connector.connect(inv));
          }
          inv.err()
              .println(
                  program
                      + ": error: "
                      + failed
                      + ": "
                      + (response.hasError()
                          ? ControlCharacters.escape(response.getError().getMessage())
                          : "unexpected reply from the server: " + response.getBodyCase()));
          return SbatchException.FAILED;
        });
  }
}
