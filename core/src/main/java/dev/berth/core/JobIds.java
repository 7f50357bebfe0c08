package dev.berth.core;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Job identifiers: {@code 123.server}, an array {@code 123[].server} and a subjob {@code
 * 123[7].server}. Users may leave the server off, or give a prefix of it that ends at a dot ({@code
 * 123.head} for server {@code head.cluster.org}), as Torque allows.
 */
public final class JobIds {
  private static final Pattern ID = Pattern.compile("(\\d+)(\\[(\\d*)\\])?(?:\\.(.+))?");

  private JobIds() {}

  public static String of(long number, String server) {
    return number + "." + server;
  }

  public static String arrayOf(long number, String server) {
    return number + "[]." + server;
  }

  public static String subjobOf(long number, int index, String server) {
    return number + "[" + index + "]." + server;
  }

  /** The canonical id for what a user typed; throws {@link BadValueException} if malformed. */
  public static String canonical(String text, String server) {
    Matcher m = ID.matcher(text.trim());
    if (!m.matches()) {
      throw new BadValueException(
          "'" + text + "' is not a job id (expected NUMBER[.server] or NUMBER[INDEX][.server])");
    }
    String suffix = m.group(4);
    String host = suffix == null || isPrefixOf(suffix, server) ? server : suffix;
    String index = m.group(3);
    String array =
        m.group(2) == null ? "" : "[" + (index.isEmpty() ? "" : withoutZeros(index)) + "]";
    return withoutZeros(m.group(1)) + array + "." + host;
  }

  /** {@code 0123} and {@code 123} name the same job. */
  private static String withoutZeros(String digits) {
    String s = digits.replaceFirst("^0+", "");
    return s.isEmpty() ? "0" : s;
  }

  /** The number before any {@code [..]} or server name; -1 if {@code id} has none. */
  public static long number(String id) {
    Matcher m = ID.matcher(id);
    if (!m.matches()) {
      return -1;
    }
    try {
      return Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      return -1; // more digits than a long holds
    }
  }

  /** The server part of a canonical id, or the empty string. */
  public static String server(String id) {
    int dot = id.indexOf('.');
    return dot < 0 ? "" : id.substring(dot + 1);
  }

  private static boolean isPrefixOf(String suffix, String server) {
    return server.equals(suffix) || server.startsWith(suffix + ".");
  }
}
