package dev.berth.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MainTest {
  private final List<String> calls = new ArrayList<>();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final Map<String, Command> commands =
      Map.of(
          "qstat",
          invocation -> {
            calls.add(invocation.program() + " " + invocation.args());
            return 7;
          });

  private int dispatch(String property, String... args) {
    return Main.dispatch(
        property, args, commands, new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void registersEveryCommand() {
    assertEquals(
        Set.of(
            "qsub",
            "qalter",
            "sbatch",
            "salloc",
            "srun",
            "squeue",
            "scancel",
            "sacct",
            "sinfo",
            "scontrol",
            "sprio",
            "sshare",
            "pbsfs",
            "pbs_rsub",
            "pbs_rstat",
            "pbs_rdel",
            "qmgr",
            "qstat",
            "qdel",
            "qhold",
            "qrls",
            "qsig",
            "qselect",
            "qrun",
            "qrerun",
            "qmove",
            "qorder",
            "qchkpt",
            "momctl",
            "pbsnodes",
            "tracejob"),
        Main.commands().keySet());
  }

  @Test
  void thePropertyNamesTheCommand() {
    assertEquals(7, dispatch("/usr/local/bin/qstat", "-a", "12"));
    assertEquals(List.of("qstat [-a, 12]"), calls);
  }

  @Test
  void withoutThePropertyTheFirstArgumentDoes() {
    assertEquals(7, dispatch(null, "qstat", "-f"));
    assertEquals(7, dispatch("  ", "qstat"));
    assertEquals(List.of("qstat [-f]", "qstat []"), calls);
  }

  @Test
  void unknownOrMissingCommandsAreUsageErrors() {
    assertEquals(2, dispatch("qfoo"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'qfoo'"));
    assertEquals(2, dispatch(null));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: berth-cli COMMAND"));
    assertEquals(List.of(), calls);
  }
}
