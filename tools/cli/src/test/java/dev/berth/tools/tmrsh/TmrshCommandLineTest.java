package dev.berth.tools.tmrsh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TmrshCommandLineTest {
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

  private static TmrshCommandLine parse(String... args) throws Getopt.UsageException {
    return TmrshCommandLine.parse(List.of(args));
  }

  @Test
  void openMpisCommandIsJoinedForTheShell() throws Exception {
    TmrshCommandLine line = TmrshCommandLine.parse(OPEN_MPI);
    assertEquals("n2", line.host());
    assertFalse(line.noStdin());
    String joined =
        " orted -mca ess \"env\" -mca ess_base_jobid \"3735552000\" -mca orte_hnp_uri"
            + " \"3735552000.0;tcp://10.0.0.1,172.17.0.1:41235\" -mca plm \"rsh\"";
    assertEquals(joined, line.joined());
    assertEquals(List.of("/bin/bash", "-c", joined), line.argv(Map.of("SHELL", "/bin/bash")));
  }

  @Test
  void hydrasOptionsStopAtTheHost() throws Exception {
    TmrshCommandLine line = TmrshCommandLine.parse(HYDRA);
    assertEquals("n2", line.host());
    assertEquals(HYDRA.subList(2, HYDRA.size()), line.command());
    assertTrue(line.joined().startsWith("\"/usr/bin/hydra_pmi_proxy\" --control-port vm:33693"));
    assertTrue(line.joined().endsWith("--usize -2 --proxy-id 1"));
  }

  @Test
  void theShellUndoesTheLaunchersQuoting() throws Exception {
    // sshd would run `$SHELL -c LINE`; so does the task: check what the words become
    List<String> args =
        List.of("n2", " printf", "'%s\\n'", "-mca", "ess", "\"env\"", "\"1.0;tcp://1.2.3.4:5\"");
    List<String> argv = TmrshCommandLine.parse(args).argv(Map.of());
    assertEquals("/bin/sh", argv.get(0));
    Process shell = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String words = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, shell.waitFor());
    assertEquals("-mca\ness\nenv\n1.0;tcp://1.2.3.4:5\n", words);
  }

  @Test
  void sshOptionsAreAcceptedAndMostlyIgnored() throws Exception {
    TmrshCommandLine line =
        parse(
            "-n",
            "-x",
            "-q",
            "-T",
            "-4",
            "-p",
            "2222",
            "-o",
            "BatchMode=yes",
            "-lalice",
            "n1",
            "hostname");
    assertTrue(line.noStdin());
    assertEquals("alice", line.login());
    assertEquals("n1", line.host());
    assertEquals(List.of("hostname"), line.command());
    assertTrue(parse("-nxXTtq46AaC", "n1", "true").noStdin());
    assertNull(parse("n1", "true").login());
    assertEquals(List.of(), parse("n1").command());
  }

  @Test
  void onlyTheCallersOwnUserIsAccepted() throws Exception {
    assertEquals(Optional.empty(), parse("n1", "true").refusal("alice"));
    assertEquals(Optional.empty(), parse("-l", "alice", "n1", "true").refusal("alice"));
    assertEquals(
        Optional.of("cannot run as root: tasks run as the job's owner"),
        parse("-l", "root", "n1", "true").refusal("alice"));
  }

  @Test
  void aRelativeShellFallsBackToBinSh() throws Exception {
    TmrshCommandLine line = parse("n1", "echo", "hi");
    assertEquals(List.of("/bin/sh", "-c", "echo hi"), line.argv(Map.of("SHELL", "bash")));
    assertEquals(List.of("/bin/zsh", "-c", "echo hi"), line.argv(Map.of("SHELL", "/bin/zsh")));
  }

  @Test
  void unknownOptionsAndAMissingHostAreUsageErrors() {
    assertEquals(
        "invalid option -- 'Z'",
        assertThrows(Getopt.UsageException.class, () -> parse("-Z", "n1", "true")).getMessage());
    assertEquals(
        "no host given", assertThrows(Getopt.UsageException.class, () -> parse("-n")).getMessage());
    assertEquals(
        "option requires an argument -- 'l'",
        assertThrows(Getopt.UsageException.class, () -> parse("-l")).getMessage());
  }
}
