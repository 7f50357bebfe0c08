package dev.berth.tools.qsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds the directives of a job script by Torque 6's rules. A directive is a line whose first
 * non-blank characters are the prefix ({@code #PBS}, case-sensitive). Scanning stops at the first
 * executable line, one whose first non-blank character is not {@code #}; blank lines, and lines
 * that start in column 0 with {@code :} or {@code #!}, never count as executable. A directive
 * ending in a backslash continues on the next line. Directives after the first executable line are
 * ignored, as in Torque, but Berth reports their line numbers so qsub can warn about them.
 *
 * <p>Scripts with CRLF line endings are refused, as Torque does, and so are binary files.
 */
final class DirectiveScanner {
  static final String DEFAULT_PREFIX = "#PBS";

  /** One directive: the line it starts on and its text after the prefix, continuations joined. */
  record Directive(int line, String text) {}

  /**
   * The directives in order, the first executable line (0 when there is none) and the lines of
   * directives that came too late to count.
   */
  record ScannedScript(
      List<Directive> directives, int firstExecutableLine, List<Integer> lateDirectiveLines) {}

  private final List<String> lines;
  private final String prefix;
  private final List<Directive> directives = new ArrayList<>();
  private final List<Integer> late = new ArrayList<>();
  private int firstExecutable;

  private DirectiveScanner(List<String> lines, String prefix) {
    this.lines = lines;
    this.prefix = prefix;
  }

  /** Scans {@code script}; an empty {@code prefix} turns directives off (qsub -C ""). */
  static ScannedScript scan(byte[] script, String prefix) throws QsubException {
    String text = new String(script, StandardCharsets.UTF_8);
    checkIsUnixText(script, text);
    DirectiveScanner scanner = new DirectiveScanner(lines(text), prefix);
    if (!prefix.isEmpty()) {
      scanner.scanLines();
    }
    return new ScannedScript(
        List.copyOf(scanner.directives), scanner.firstExecutable, List.copyOf(scanner.late));
  }

  private static void checkIsUnixText(byte[] script, String text) throws QsubException {
    for (byte b : script) {
      if (b == 0) {
        throw new QsubException(
            "the job script is not a text file (it contains NUL bytes); qsub takes a shell"
                + " script");
      }
    }
    if (text.contains("\r\n")) {
      throw new QsubException(
          "script is written in DOS/Windows text format (CRLF line endings); convert it with"
              + " dos2unix");
    }
  }

  private static List<String> lines(String text) {
    String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    return body.isEmpty() ? List.of() : Arrays.asList(body.split("\n", -1));
  }

  private void scanLines() throws QsubException {
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (firstExecutable > 0) {
        if (isDirective(line)) {
          late.add(i + 1);
        }
      } else if (isDirective(line)) {
        i = readDirective(i);
      } else if (isExecutable(line)) {
        firstExecutable = i + 1;
      }
    }
  }

  /** Reads the directive starting at index {@code first}; returns the index of its last line. */
  private int readDirective(int first) throws QsubException {
    int i = first;
    StringBuilder text = new StringBuilder(afterPrefix(lines.get(i)));
    while (text.length() > 0 && text.charAt(text.length() - 1) == '\\') {
      text.setLength(text.length() - 1);
      if (++i == lines.size()) {
        throw new QsubException(
            "directive on line "
                + (first + 1)
                + " ends with a backslash (continued), but the script ends there");
      }
      String next = lines.get(i);
      text.append(isDirective(next) ? afterPrefix(next) : next);
    }
    directives.add(new Directive(first + 1, text.toString()));
    return i;
  }

  private boolean isDirective(String line) {
    return line.startsWith(prefix, firstNonBlank(line));
  }

  private String afterPrefix(String line) {
    return line.substring(firstNonBlank(line) + prefix.length());
  }

  /** Torque's {@code isexecutable}: column-0 {@code :} and {@code #!} lines never are. */
  static boolean isExecutable(String line) {
    if (line.startsWith(":") || line.startsWith("#!")) {
      return false;
    }
    int at = firstNonBlank(line);
    return at < line.length() && line.charAt(at) != '#';
  }

  private static int firstNonBlank(String line) {
    int at = 0;
    while (at < line.length() && DirectiveTokenizer.isBlank(line.charAt(at))) {
      at++;
    }
    return at;
  }
}
