package dev.berth.tools.qsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch script as Slurm's sbatch reads it: checked for what Slurm refuses (empty, no {@code #!}
 * first, a NUL byte, DOS line breaks), and its {@code #SBATCH} directives: lines that begin with
 * {@code #SBATCH} in their first column, up to the first line that is neither blank nor a comment.
 * Each directive's words are split as a shell would (quotes group, a backslash escapes), and an
 * unquoted {@code #} ends the line. Berth's sbatch reads no {@code #PBS} lines: a script that has
 * them among its directives is refused unless {@code --ignore-pbs} says to leave them.
 */
final class SbatchScript {
  private static final String PREFIX = "#SBATCH";

  private SbatchScript() {}

  /**
   * Refuses what Slurm's sbatch refuses, in its words (exit 1).
   *
   * @param name the script as the user named it, for the messages
   */
  static void check(byte[] script, String name) throws SbatchException {
    String text = new String(script, StandardCharsets.UTF_8);
    if (script.length == 0) {
      throw SbatchException.failed("Batch script is empty!");
    }
    if (text.isBlank()) {
      throw SbatchException.failed("Batch script contains only whitespace!");
    }
    if (!text.startsWith("#!")) {
      throw new SbatchException(
          SbatchException.FAILED,
          "sbatch: error: This does not look like a batch script.  The first\n"
              + "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
              + "sbatch: error: For instance: #!/bin/sh");
    }
    if (text.indexOf('\0') >= 0) {
      throw new SbatchException(
          SbatchException.FAILED,
          "sbatch: error: The Slurm controller does not allow scripts that\n"
              + "sbatch: error: contain a NULL character '\\0'.");
    }
    if (text.contains("\r\n")) {
      throw new SbatchException(
          SbatchException.FAILED,
          "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
              + "sbatch: error: instead of expected UNIX line breaks (\\n).");
    }
  }

  /** The words of the script's {@code #SBATCH} directives, in order. */
  static List<String> directives(byte[] script, String name, boolean ignorePbs)
      throws SbatchException {
    List<String> words = new ArrayList<>();
    String[] lines = new String(script, StandardCharsets.UTF_8).split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n];
      String stripped = line.strip();
      if (line.startsWith(PREFIX)
          && (line.length() == PREFIX.length()
              || Character.isWhitespace(line.charAt(PREFIX.length())))) {
        words.addAll(split(line.substring(PREFIX.length()), name, n + 1, line));
      } else if (line.startsWith("#PBS") && !ignorePbs) {
        throw SbatchException.failed(
            name
                + ": line "
                + (n + 1)
                + ": a #PBS directive: Berth's sbatch reads only #SBATCH lines; submit the"
                + " script with qsub, remove its #PBS lines, or pass --ignore-pbs to leave them");
      } else if (!stripped.isEmpty() && !stripped.startsWith("#")) {
        break; // the first command: directives end
      }
    }
    return words;
  }

  /** A directive's words: whitespace splits, quotes group, {@code \} escapes, {@code #} ends. */
  private static List<String> split(String text, String name, int lineNumber, String line)
      throws SbatchException {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\\' && i + 1 < text.length()) {
        word.append(text.charAt(++i));
        inWord = true;
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (c == '#') {
        break;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (quote != 0) {
      throw new SbatchException(
          SbatchException.FAILED,
          "sbatch: fatal: "
              + name
              + ": line "
              + lineNumber
              + ": Unmatched `"
              + quote
              + "` in ["
              + line
              + "]");
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
