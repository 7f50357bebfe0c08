package dev.berth.tools;

import dev.berth.tools.help.BashCompletion;
import dev.berth.tools.help.CommandHelp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Writes what the packages install beside the commands, from the commands' part of the
 * documentation (CommandHelp), so {@code man qsub}, {@code qsub --help}, completion and
 * docs/qsub.md cannot disagree: {@code DIR/man1/COMMAND.1} for every command (the Java ones and the
 * native pbsdsh, pbs_tmrsh and srun), and {@code DIR/bash-completion/berth-torque}, the completion
 * of the Java ones. ops/package runs it.
 */
public final class Manuals {
  /** The commands built in C (tools/tm), documented like the others (srun in docs/slurm.md). */
  private static final List<String> NATIVE = List.of("pbsdsh", "pbs_tmrsh", "srun");

  private Manuals() {}

  /** Every command that has a man page. */
  public static SortedSet<String> commands() {
    SortedSet<String> all = new TreeSet<>(Main.commands().keySet());
    all.addAll(NATIVE);
    return all;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println(
          "usage: Manuals DIR (writes DIR/man1/*.1, DIR/bash-completion/berth-torque)");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    Path section = Files.createDirectories(dir.resolve("man1"));
    for (String command : commands()) {
      String page =
          CommandHelp.manPage(command)
              .orElseThrow(() -> new IllegalStateException("no documentation for " + command));
      Files.writeString(section.resolve(command + ".1"), page, StandardCharsets.UTF_8);
    }
    Path completion = Files.createDirectories(dir.resolve("bash-completion"));
    Files.writeString(
        completion.resolve("berth-torque"),
        BashCompletion.script(commands()),
        StandardCharsets.UTF_8);
  }
}
