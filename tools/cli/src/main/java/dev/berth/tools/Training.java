package dev.berth.tools;

import dev.berth.client.Invocation;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs every command once against the live server, changing nothing, so that a class-data archive
 * made from this run (ops/bin/berth-cli-archive) holds the classes real invocations load. The qsub
 * it sends is refused by the server (a malformed walltime), and the pbs_rdel (no reservation R0),
 * on purpose; the pbs_rsub stops at its own usage check (no nodes), before the server.
 */
final class Training {
  private static final List<List<String>> RUNS =
      List.of(
          List.of("qstat"),
          List.of("qstat", "-a", "-n"),
          List.of("qstat", "-f"),
          List.of("qstat", "-f", "-F", "json"),
          List.of("qstat", "-x"),
          List.of("qstat", "-Q"),
          List.of("qstat", "-B"),
          List.of("qstat", "0"),
          List.of("pbsnodes", "-a"),
          List.of("qmgr", "-c", "list server"),
          List.of("qmgr", "-c", "print server"),
          List.of("qdel", "0"),
          List.of("qhold", "0"),
          List.of("qrls", "0"),
          List.of("qsig", "0"),
          List.of("qselect", "-s", "Q"),
          List.of("qrun", "0"),
          List.of("qrerun", "0"),
          List.of("qmove", "batch", "0"),
          List.of("qorder", "0", "1"),
          List.of("qchkpt", "0"),
          List.of("momctl", "-d", "0"),
          List.of("qalter", "-N", "x", "0"),
          List.of("tracejob", "0"),
          List.of("pbsfs"),
          List.of("pbs_rstat"),
          List.of("pbs_rstat", "-f"),
          List.of("pbs_rdel", "R0"),
          List.of("pbs_rsub", "-D", "60"),
          List.of("qsub", "-l", "walltime=not-a-time"));

  private Training() {}

  static int run(Map<String, Command> commands) {
    PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
    for (List<String> run : RUNS) {
      Invocation inv =
          new Invocation(
              run.get(0),
              run.subList(1, run.size()),
              System.getenv(),
              Path.of(System.getProperty("user.dir")),
              new ByteArrayInputStream("#PBS -N training\ntrue\n".getBytes()),
              sink,
              sink);
      commands.get(run.get(0)).run(inv);
    }
    return 0;
  }
}
