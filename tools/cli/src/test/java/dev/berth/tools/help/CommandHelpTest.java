package dev.berth.tools.help;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.tools.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandHelpTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String command, String... args) {
    Invocation invocation =
        new Invocation(
            command,
            List.of(args),
            Map.of("BERTH_SERVER", "/nonexistent/server.sock"),
            Path.of("/"),
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return Main.commands().get(command).run(invocation);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyCommandAnswersHelpWithItsPartOfTheDocumentation() {
    for (String command : Main.commands().keySet()) {
      out.reset();
      assertEquals(0, run(command, "--help"), command + ": " + err);
      String help = out();
      String title = help.substring(0, help.indexOf('\n'));
      assertTrue(List.of(title.split(",? (and )?")).contains(command), command + ":\n" + help);
      assertTrue(help.contains("\n  " + command), command + " shows its synopsis:\n" + help);
      assertTrue(help.contains("The whole text: docs/"), help);
      assertFalse(help.contains("`"), command + ": Markdown left in\n" + help);
      assertFalse(help.contains("|---"), command + ": a table's border left in\n" + help);
    }
  }

  @Test
  void optionsAreListedWithWhatTheyDo() {
    run("qstat", "--help");
    String qstat = out();
    assertTrue(qstat.contains("\n  -f                    every attribute, Name = value"), qstat);
    assertTrue(qstat.contains("\n  -u user,...           only these owners' jobs"), qstat);

    out.reset();
    run("qsub", "--help");
    String qsub = out();
    assertTrue(qsub.startsWith("qsub and qalter — submit and change batch jobs\n"), qsub);
    assertTrue(qsub.contains("\nOptions:\n"), qsub);
    assertTrue(qsub.contains("\n  -N name               job name"), qsub);
    assertTrue(qsub.contains("  -c n|s|c|c=MIN|..."), "an escaped bar is a bar:\n" + qsub);
    assertFalse(qsub.contains("Job_Name"), "the attribute an option sets is the page's:\n" + qsub);
  }

  @Test
  void helpAfterTheEndOfOptionsIsAnOperand() {
    assertTrue(CommandHelp.asked(List.of("-a", "--help")));
    assertFalse(CommandHelp.asked(List.of("--", "--help")));
    assertFalse(CommandHelp.asked(List.of("-a", "12")));
  }

  @Test
  void paragraphsAreWrappedAndCodeIsKeptAsWritten() {
    String text =
        MarkdownText.render(
            List.of(
                "```",
                "qdel [-p | -W delay] job_id... | all" + " ".repeat(60) + "# long stays long",
                "```",
                "",
                "Deletes jobs: " + "a queued job goes at once, ".repeat(8) + "see [mail](mail.md).",
                "",
                "| flag | |",
                "|---|---|",
                "| `-a-very-long-option value` | what it does |"));
    for (String line : text.split("\n")) {
      assertTrue(line.length() <= MarkdownText.WIDTH || line.contains("# long stays long"), line);
    }
    assertTrue(text.contains("see mail."), text);
    assertTrue(
        text.contains("\n  -a-very-long-option value\n                        what it"), text);
  }
}
