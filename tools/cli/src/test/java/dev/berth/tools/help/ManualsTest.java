package dev.berth.tools.help;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;
import dev.berth.tools.Main;
import dev.berth.tools.Manuals;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The man pages and the completion made from the documentation, read by man and bash. */
class ManualsTest {
  @TempDir Path dir;

  private static String run(Path cwd, Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    pb.environment().putAll(env);
    Process p = pb.redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ":\n" + out);
    return out;
  }

  @Test
  void everyCommandHasAManPageThatManReadsWithoutComplaint() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/man")), "this machine has no man (man-db)");
    Manuals.main(new String[] {dir.toString()});
    for (String command : Manuals.commands()) {
      Path page = dir.resolve("man1/" + command + ".1");
      assertTrue(Files.isRegularFile(page), page + " is missing");
      String shown = run(dir, Map.of("MANWIDTH", "80"), "man", "-l", page.toString());
      assertTrue(shown.contains("\nNAME\n"), command + ":\n" + shown);
      String name = shown.substring(shown.indexOf("\nNAME\n") + 6).strip();
      assertTrue(name.matches("(?s)[a-z_, ]*\\b" + command + "\\b[a-z_, ]*\\s+-\\s+\\S.*"), name);
      assertTrue(shown.contains("Berth " + BerthVersion.NUMBER), command + ":\n" + shown);
      assertTrue(!shown.contains("`") && !shown.contains("**"), command + ":\n" + shown);
      // groff's warnings, bar a line too long to adjust (a long code line, an XML sample)
      String warnings =
          run(
                  dir,
                  Map.of("MANWIDTH", "80"),
                  "sh",
                  "-c",
                  "man --warnings -l \"$0\" 2>&1 >/dev/null",
                  page.toString())
              .lines()
              .filter(line -> !line.contains("cannot adjust line"))
              .collect(Collectors.joining("\n"));
      assertEquals("", warnings, command);
    }
    String qstat =
        run(dir, Map.of("MANWIDTH", "80"), "man", "-l", dir.resolve("man1/qstat.1").toString());
    assertTrue(qstat.contains("\nSYNOPSIS\n           qstat [-f [-1]]"), qstat);
    assertTrue(qstat.matches("(?s).*\n       -f +every +attribute, +Name += +value.*"), qstat);
  }

  @Test
  void textThatLooksLikeARequestStaysText() {
    assertEquals("\\&.bashrc is read", ManPage.escape(".bashrc is read"));
    assertEquals("\\&'quoted'", ManPage.escape("'quoted'"));
    assertEquals("a \\e backslash and \\-l", ManPage.escape("a \\ backslash and -l"));
    assertEquals(
        "\\fB\\-l walltime\\fR, see mail", ManPage.inline("`-l walltime`, see [mail](mail.md)"));
    assertEquals("\\fB$1\\fR costs", ManPage.inline("**$1** costs"));
  }

  @Test
  void bashCompletesEachCommandsDocumentedOptions() throws Exception {
    Manuals.main(new String[] {dir.toString()});
    Path script = dir.resolve("bash-completion/berth-torque");
    String complete =
        "source \"$0\"; COMP_WORDS=(\"$1\" \"$2\"); COMP_CWORD=1; _berth_torque \"$1\" \"$2\" \"$1\";"
            + " printf '%s\\n' \"${COMPREPLY[@]}\"";
    List<String> qstat =
        run(dir, Map.of(), "bash", "-c", complete, script.toString(), "qstat", "-")
            .lines()
            .toList();
    assertTrue(
        qstat.containsAll(List.of("-f", "-a", "-u", "-Q", "--help", "--version")), "" + qstat);
    List<String> qsub =
        run(dir, Map.of(), "bash", "-c", complete, script.toString(), "qsub", "-").lines().toList();
    assertTrue(qsub.containsAll(List.of("-l", "-N", "-W", "-I", "--about")), "" + qsub);
    List<String> qdel =
        run(dir, Map.of(), "bash", "-c", complete, script.toString(), "qdel", "-").lines().toList();
    assertEquals(List.of("--help", "--version", "-W", "-m", "-p"), qdel);
    String registered =
        run(dir, Map.of(), "bash", "-c", "source \"$0\"; complete -p", script.toString());
    for (String command : Manuals.commands()) {
      assertTrue(
          registered.contains(" " + command + "\n") || registered.endsWith(" " + command),
          command + ": " + registered);
    }
  }

  @Test
  void everyCommandPrintsTheOneVersion() {
    for (String command : Main.commands().keySet()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Invocation invocation =
          new Invocation(
              command,
              List.of("--version"),
              Map.of("BERTH_SERVER", "/nonexistent/server.sock"),
              Path.of("/"),
              new ByteArrayInputStream(new byte[0]),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(out, true, StandardCharsets.UTF_8));
      assertEquals(0, Main.commands().get(command).run(invocation), command + ": " + out);
      // Torque's commands print Torque's form; Slurm's theirs ("slurm 22.05.9"), with Berth's name
      String form =
          Set.of(
                      "sbatch",
                      "salloc",
                      "srun",
                      "squeue",
                      "scancel",
                      "sacct",
                      "sinfo",
                      "scontrol",
                      "sprio",
                      "sshare")
                  .contains(command)
              ? "berth "
              : "Version: ";
      assertEquals(
          form + BerthVersion.NUMBER + "\n", out.toString(StandardCharsets.UTF_8), command);
    }
    assertTrue(BerthVersion.NUMBER.matches("\\d+\\.\\d+\\.\\d+.*"), BerthVersion.NUMBER);
  }
}
