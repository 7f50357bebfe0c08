package dev.berth.tools.qsub;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Warnings and errors found while reading a command line and a job script. Each one remembers where
 * it came from: line 0 is the command line, any other number a line of the script. Errors are all
 * collected before qsub gives up, so one run shows every problem of a script.
 */
final class Diagnostics {
  /** Where a message points: the command line ({@code line == 0}) or a script line. */
  record Message(int line, String text) {
    String located() {
      return line == 0 ? text : "directive on line " + line + ": " + text;
    }
  }

  static final int COMMAND_LINE = 0;

  private final List<Message> warnings = new ArrayList<>();
  private final List<Message> errors = new ArrayList<>();

  void warn(int line, String text) {
    warnings.add(new Message(line, text));
  }

  void error(int line, String text) {
    errors.add(new Message(line, text));
  }

  boolean hasErrors() {
    return !errors.isEmpty();
  }

  /** Warnings as shown, in the order they were found. */
  List<String> warnings() {
    return warnings.stream().map(Message::located).toList();
  }

  /** Errors as shown: the command line's first, then the script's by line. */
  List<String> errors() {
    return errors.stream()
        .sorted(Comparator.comparingInt(Message::line))
        .map(Message::located)
        .toList();
  }

  void printWarnings(String program, PrintStream err) {
    warnings().forEach(w -> err.println(program + ": warning: " + w));
  }

  void printErrors(String program, PrintStream err) {
    errors().forEach(e -> err.println(program + ": " + e));
  }
}
