package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pbs_tmrsh's command line, read as rsh and ssh read theirs, seen through the task it spawns. */
class TmrshCommandLineTest {
  static final String USAGE =
      "usage: pbs_tmrsh [-n] [-l user] [-xXTtq46AaC] [-p port] [-o option] host command"
          + " [args...]\n";

  /** What Open MPI 4.1's rsh launcher runs: a word starting with a blank, quoted values. */
  private static final List<String> OPEN_MPI =
      List.of(
          "n2",
          " orted",
          "-mca",
          "ess",
          "\"env\"",
          "-mca",
          "ess_base_jobid",
          "\"3735552000\"",
          "-mca",
          "orte_hnp_uri",
          "\"3735552000.0;tcp://10.0.0.1,172.17.0.1:41235\"",
          "-mca",
          "plm",
          "\"rsh\"");

  /** What MPICH's hydra runs. */
  private static final List<String> HYDRA =
      List.of(
          "-x",
          "n2",
          "\"/usr/bin/hydra_pmi_proxy\"",
          "--control-port",
          "vm:33693",
          "--rmk",
          "pbs",
          "--launcher",
          "rsh",
          "--demux",
          "poll",
          "--pgid",
          "0",
          "--retries",
          "10",
          "--usize",
          "-2",
          "--proxy-id",
          "1");

  @TempDir Path dir;
  private FakeTm tm;

  @BeforeEach
  void job() throws Exception {
    tm = FakeTm.start(dir, FakeTm.job("n1:1", "n2:1"), spawn -> Script.exits(0));
  }

  @AfterEach
  void stop() throws Exception {
    tm.close();
  }

  /** Runs pbs_tmrsh with these arguments and $SHELL (when not null); the task's argv. */
  private List<String> argv(String shell, List<String> args) throws Exception {
    Map<String, String> env = new HashMap<>(Map.of("BERTH_TM_SOCKET", tm.socket().toString()));
    if (shell != null) {
      env.put("SHELL", shell);
    }
    Result run = TmProcess.run(dir, env, "", "pbs_tmrsh", args.toArray(String[]::new));
    assertEquals(0, run.status(), run.err());
    return tm.spawns().get(tm.spawns().size() - 1).getArgvList();
  }

  private String refused(String... args) throws Exception {
    Result run = TmProcess.run(dir, Map.of(), "", "pbs_tmrsh", args);
    assertEquals(255, run.status());
    assertTrue(run.err().endsWith("\n" + USAGE), run.err());
    return run.err().substring(0, run.err().length() - USAGE.length() - 1);
  }

  @Test
  void openMpisCommandIsJoinedForTheShell() throws Exception {
    String joined =
        " orted -mca ess \"env\" -mca ess_base_jobid \"3735552000\" -mca orte_hnp_uri"
            + " \"3735552000.0;tcp://10.0.0.1,172.17.0.1:41235\" -mca plm \"rsh\"";
    assertEquals(List.of("/bin/bash", "-c", joined), argv("/bin/bash", OPEN_MPI));
    assertEquals("spawn n2 1", tm.log().get(0));
  }

  @Test
  void hydrasOptionsStopAtTheHost() throws Exception {
    List<String> argv = argv("/bin/bash", HYDRA);
    assertEquals("spawn n2 1", tm.log().get(0));
    assertEquals(String.join(" ", HYDRA.subList(2, HYDRA.size())), argv.get(2));
    assertTrue(argv.get(2).startsWith("\"/usr/bin/hydra_pmi_proxy\" --control-port vm:33693"));
    assertTrue(argv.get(2).endsWith("--usize -2 --proxy-id 1"));
  }

  @Test
  void theShellUndoesTheLaunchersQuoting() throws Exception {
    // sshd would run `$SHELL -c LINE`; so does the task: check what the words become
    List<String> args =
        List.of("n2", " printf", "'%s\\n'", "-mca", "ess", "\"env\"", "\"1.0;tcp://1.2.3.4:5\"");
    List<String> argv = argv(null, args);
    assertEquals("/bin/sh", argv.get(0));
    Process shell = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String words = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, shell.waitFor());
    assertEquals("-mca\ness\nenv\n1.0;tcp://1.2.3.4:5\n", words);
  }

  @Test
  void sshOptionsAreAcceptedAndMostlyIgnored() throws Exception {
    String me = System.getProperty("user.name");
    List<String> args =
        List.of(
            "-n",
            "-x",
            "-q",
            "-T",
            "-4",
            "-p",
            "2222",
            "-o",
            "BatchMode=yes",
            "-l" + me,
            "n1",
            "hostname");
    assertEquals(List.of("/bin/sh", "-c", "hostname"), argv(null, args));
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1"), tm.log()); // -n
    argv(null, List.of("-nxXTtq46AaC", "n1", "true"));
    assertEquals(List.of("spawn n1 0", "input 1 eof", "wait 1"), tm.log().subList(3, 6));
  }

  @Test
  void aRelativeShellFallsBackToBinSh() throws Exception {
    assertEquals(List.of("/bin/sh", "-c", "echo hi"), argv("bash", List.of("n1", "echo", "hi")));
    assertEquals(
        List.of("/bin/zsh", "-c", "echo hi"), argv("/bin/zsh", List.of("n1", "echo", "hi")));
  }

  @Test
  void unknownOptionsAndAMissingHostAreUsageErrors() throws Exception {
    assertEquals("pbs_tmrsh: invalid option -- 'Z'", refused("-Z", "n1", "true"));
    assertEquals("pbs_tmrsh: no host given", refused("-n"));
    assertEquals("pbs_tmrsh: option requires an argument -- 'l'", refused("-l"));
    assertEquals("pbs_tmrsh: option requires an argument -- 'p'", refused("-p"));
  }
}
