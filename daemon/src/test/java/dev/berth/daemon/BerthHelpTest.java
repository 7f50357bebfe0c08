package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.BerthVersion;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BerthHelpTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine berth = Berth.commandLine();
    berth.setOut(new PrintWriter(out, true));
    berth.setErr(new PrintWriter(err, true));
    return berth.execute(args);
  }

  /** Every command of the tree by its path from berth: {@code [up]}, {@code [kafka, start]} ... */
  private static void paths(CommandLine command, List<String> path, List<List<String>> all) {
    for (var sub : command.getSubcommands().entrySet()) {
      if (sub.getKey().equals("help")) {
        continue;
      }
      List<String> p = new ArrayList<>(path);
      p.add(sub.getKey());
      all.add(p);
      paths(sub.getValue(), p, all);
    }
  }

  @Test
  void everyCommandAnswersHelpWithItsOptions() {
    List<List<String>> all = new ArrayList<>();
    paths(Berth.commandLine(), List.of(), all);
    assertTrue(all.size() >= 20, "" + all);
    for (List<String> path : all) {
      out.getBuffer().setLength(0);
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      assertEquals(0, run(args.toArray(String[]::new)), path + ": " + err);
      String help = out.toString();
      assertTrue(help.startsWith("Usage: berth " + String.join(" ", path)), path + ":\n" + help);
      assertTrue(help.contains("--help"), path + ":\n" + help);
    }
  }

  @Test
  void everyOptionSaysWhatItDoes() {
    List<List<String>> all = new ArrayList<>();
    paths(Berth.commandLine(), List.of(), all);
    for (List<String> path : all) {
      CommandLine command = Berth.commandLine();
      for (String name : path) {
        command = command.getSubcommands().get(name);
      }
      for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
        assertTrue(
            option.hidden() || String.join("", option.description()).strip().length() > 0,
            "berth " + String.join(" ", path) + " " + option.longestName());
      }
    }
  }

  @Test
  void helpNamesACommandAndVersionIsTheSameEverywhere() {
    assertEquals(0, run("help", "up"));
    String up = out.toString();
    assertTrue(up.startsWith("Usage: berth up"), up);
    assertTrue(up.contains("--nodes"), up);

    out.getBuffer().setLength(0);
    assertEquals(0, run("help", "kafka", "start"));
    assertTrue(out.toString().startsWith("Usage: berth kafka start"), out.toString());
    assertEquals(2, run("help", "kafka", "begin"));
    assertTrue(err.toString().contains("no command begin in berth kafka"), err.toString());

    out.getBuffer().setLength(0);
    assertEquals(0, run("--version"));
    String version = out.toString();
    out.getBuffer().setLength(0);
    assertEquals(0, run("kafka", "start", "--version"));
    assertEquals(version, out.toString());
    assertEquals("Berth " + BerthVersion.NUMBER + "\n", version);
  }

  @Test
  void bashCompletesCommandsSubcommandsAndOptions() throws Exception {
    assertEquals(0, run("completion"));
    Path script = Files.createTempFile("berth-completion", ".bash");
    try {
      Files.writeString(script, out.toString());
      assertEquals(List.of("kafka"), complete(script, "berth", "ka"));
      assertEquals(List.of("start", "stop"), complete(script, "berth", "kafka", "st"));
      assertTrue(complete(script, "berth", "up", "--no").contains("--nodes"));
    } finally {
      Files.delete(script);
    }
  }

  /** What bash offers for the last of {@code words} with berth's completion loaded. */
  private static List<String> complete(Path script, String... words) throws Exception {
    String line = String.join(" ", words);
    ProcessBuilder bash =
        new ProcessBuilder(
            "bash",
            "-c",
            "source \"$0\" 2>/dev/null; COMP_WORDS=(\"${@}\"); COMP_CWORD=$(($# - 1));"
                + " COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; _complete_berth 2>/dev/null;"
                + " printf '%s\\n' \"${COMPREPLY[@]}\"",
            script.toString());
    bash.command().addAll(List.of(words));
    Process p = bash.redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), line + ": " + out);
    return out.lines().filter(s -> !s.isBlank()).sorted().toList();
  }
}
