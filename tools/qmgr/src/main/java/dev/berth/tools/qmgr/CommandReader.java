package dev.berth.tools.qmgr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Cuts qmgr input into directives as Torque's qmgr does: blank lines and lines starting with {@code
 * #} are skipped; a line ending in a backslash continues on the next (the backslash becomes a
 * blank, and a blank line ends the continuation); {@code ;} separates directives on one line and
 * {@code #} starts a comment that runs to the end of the line, both except inside {@code "..."} or
 * {@code '...'}. When reading a terminal it prompts {@code Qmgr: }, and {@code Qmgr< } for a
 * continuation line.
 */
final class CommandReader {
  static final String PROMPT = "Qmgr: ";
  static final String CONTINUATION_PROMPT = "Qmgr< ";

  private final BufferedReader in;
  private final PrintStream prompt;
  private final Deque<String> pending = new ArrayDeque<>();

  /**
   * @param prompt where to write prompts, or null for none (input is not a terminal)
   */
  CommandReader(BufferedReader in, PrintStream prompt) {
    this.in = in;
    this.prompt = prompt;
  }

  /** The directives of a {@code -c} argument, read by the same rules as standard input. */
  static CommandReader of(String text) {
    return new CommandReader(new BufferedReader(new StringReader(text)), null);
  }

  /** The next directive, without surrounding blanks; null at the end of the input. */
  String next() throws IOException {
    while (pending.isEmpty()) {
      String line = logicalLine();
      if (line == null) {
        return null;
      }
      split(line);
    }
    return pending.poll();
  }

  private String logicalLine() throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      if (prompt != null) {
        prompt.print(line.length() == 0 ? PROMPT : CONTINUATION_PROMPT);
        prompt.flush();
      }
      String physical = in.readLine();
      if (physical == null) {
        if (prompt != null) {
          prompt.print("\n"); // end the prompt line, so the shell's prompt starts a new one
        }
        return line.length() == 0 ? null : line.toString();
      }
      if (physical.endsWith("\r")) {
        physical = physical.substring(0, physical.length() - 1);
      }
      if (physical.isBlank()) {
        if (line.length() == 0) {
          continue;
        }
        return line.toString();
      }
      if (line.length() == 0 && physical.strip().startsWith("#")) {
        continue;
      }
      if (physical.endsWith("\\")) {
        line.append(physical, 0, physical.length() - 1).append(' ');
        continue;
      }
      return line.append(physical).toString();
    }
  }

  private void split(String line) {
    StringBuilder directive = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == ';') {
        add(directive);
        directive.setLength(0);
        continue;
      } else if (c == '#') {
        break;
      }
      directive.append(c);
    }
    add(directive);
  }

  private void add(CharSequence directive) {
    String text = directive.toString().strip();
    if (!text.isEmpty()) {
      pending.add(text);
    }
  }
}
