package dev.berth.tools.qsub;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits the text of one directive (what follows {@code #PBS}) into words the way Torque's qsub
 * does: words are separated by blanks, {@code '..'} and {@code ".."} group text and are removed,
 * and a backslash outside quotes takes the next character literally.
 *
 * <p>One deliberate difference: an unquoted {@code #} that starts a word begins a comment, and the
 * rest of the line is ignored. Torque reads comment words as arguments, so an apostrophe in a
 * comment ({@code # the job's name}) kills the submission and {@code # see -N} would be parsed as
 * an option. A {@code #} inside a word ({@code -N run#2}) is kept.
 */
final class DirectiveTokenizer {
  private final String text;
  private int pos;

  private DirectiveTokenizer(String text) {
    this.text = text;
  }

  static List<String> tokenize(String text) throws QsubException {
    return new DirectiveTokenizer(text).words();
  }

  /** The blanks Torque's {@code isspace} accepts between words. */
  static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
  }

  private List<String> words() throws QsubException {
    List<String> words = new ArrayList<>();
    while (true) {
      while (pos < text.length() && isBlank(text.charAt(pos))) {
        pos++;
      }
      if (pos == text.length() || text.charAt(pos) == '#') {
        return words;
      }
      words.add(word());
    }
  }

  private String word() throws QsubException {
    StringBuilder word = new StringBuilder();
    while (pos < text.length() && !isBlank(text.charAt(pos))) {
      char c = text.charAt(pos++);
      if (c == '\'' || c == '"') {
        quoted(c, word);
      } else if (c == '\\' && pos < text.length()) {
        word.append(text.charAt(pos++));
      } else {
        word.append(c);
      }
    }
    return word.toString();
  }

  private void quoted(char quote, StringBuilder word) throws QsubException {
    int end = text.indexOf(quote, pos);
    if (end < 0) {
      throw new QsubException(
          "unmatched "
              + quote
              + " (close the quote, or escape a literal one as \\"
              + quote
              + "; text after a blank and # is a comment)");
    }
    word.append(text, pos, end);
    pos = end + 1;
  }
}
