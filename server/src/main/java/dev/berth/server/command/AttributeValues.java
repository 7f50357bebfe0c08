package dev.berth.server.command;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import java.nio.charset.StandardCharsets;

/**
 * What every attribute value must be, whatever its attribute (a job's, a queue's, the server's, a
 * node's), checked before the attribute's own rules: free of control characters, which could forge
 * lines or terminal escapes where the value is shown and have no use in a path, name, shell or
 * environment value; free of invisible formatting characters (Unicode Cf: zero-width characters,
 * direction marks, tags, {@link ControlCharacters#isFormat}), which make two names that look the
 * same differ or reorder what is shown around them; and at most {@link #MAX_BYTES} long, so that
 * one value cannot make the journal and every status reply carry megabytes. A whole job is bounded
 * too ({@link #checkTotal}).
 *
 * <p>Values that are the job's own data rather than names or text about it ({@link #checkData}: its
 * environment, and qsub's command line that repeats it) keep formatting characters: a user's
 * environment may hold them for good reason (a zero-width joiner in Persian or Indic text, in an
 * emoji), the job gets them as they were, and the commands escape them where they show them.
 */
public final class AttributeValues {
  /** The longest value accepted, in UTF-8 bytes. */
  public static final int MAX_BYTES = 64 * 1024;

  /**
   * The most a job's attributes may take together, encoded: with the largest default script this
   * keeps a submission within the 1 MiB a Kafka journal record may have by default.
   */
  static final int MAX_JOB_BYTES = 256 * 1024;

  /** How much of a refused value an error message repeats. */
  private static final int SHOWN = 60;

  private AttributeValues() {}

  /** Refuses {@code value} of attribute {@code label} if it breaks a rule, naming both. */
  public static void check(String label, String value) {
    checkData(label, value);
    int at = ControlCharacters.findFormat(value);
    if (at >= 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "illegal value for "
              + shown(label)
              + ": '"
              + shown(value)
              + "' holds "
              + ControlCharacters.name(value.codePointAt(at))
              + ", an invisible formatting character, at position "
              + (at + 1)
              + " (names and text may hold no invisible or bidirectional formatting characters)");
    }
  }

  /**
   * Refuses {@code value} of attribute {@code label} if it holds a control character or is too
   * long: the rules for a job's own data, which may hold formatting characters.
   */
  public static void checkData(String label, String value) {
    int at = ControlCharacters.find(value);
    if (at >= 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "illegal value for "
              + shown(label)
              + ": '"
              + shown(value)
              + "' holds the control character "
              + ControlCharacters.escape(value.charAt(at))
              + " at position "
              + (at + 1)
              + " (no value may hold control characters, newlines or terminal escapes)");
    }
    if (value.length() > MAX_BYTES / 3
        && value.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the value of "
              + shown(label)
              + " is "
              + value.getBytes(StandardCharsets.UTF_8).length
              + " bytes long; the server takes values of at most "
              + MAX_BYTES
              + " bytes");
    }
  }

  /** Refuses a job whose attributes together are larger than {@link #MAX_JOB_BYTES}. */
  public static void checkTotal(Job job) {
    int size = job.getSerializedSize();
    if (size > MAX_JOB_BYTES) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the job's attributes take "
              + size
              + " bytes together (Variable_List has "
              + job.getVariablesCount()
              + " variables); the server takes at most "
              + MAX_JOB_BYTES
              + " bytes");
    }
  }

  /** A value as an error message may repeat it: escaped, and cut if long. */
  public static String shown(String value) {
    String escaped = ControlCharacters.escape(value);
    return escaped.length() <= SHOWN ? escaped : escaped.substring(0, SHOWN) + "...";
  }
}
