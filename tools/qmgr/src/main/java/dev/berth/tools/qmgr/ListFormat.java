package dev.berth.tools.qmgr;

import dev.berth.proto.Manage.ObjectType;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * {@code qmgr list} output, as Torque prints it: a title line ({@code Server name}, {@code Queue
 * name}, {@code Node name}), one {@code <tab>attribute = value} line per attribute, and a blank
 * line. A comma-separated value that would pass column 80 continues on the next line, indented
 * under the value; {@code mtime} (epoch seconds) is shown as a local date like ctime(3).
 */
final class ListFormat {
  private static final DateTimeFormatter CTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ENGLISH);

  /** Where Torque wraps a long list value. */
  private static final int WIDTH = 80;

  /** Torque counts the leading tab as eight columns. */
  private static final int TAB = 8;

  private ListFormat() {}

  static String format(ObjectView view, ZoneId zone) {
    StringBuilder out = new StringBuilder();
    out.append(title(view.type())).append(' ').append(view.name()).append('\n');
    for (ObjectView.Entry entry : view.entries()) {
      line(out, entry, zone);
    }
    return out.append('\n').toString();
  }

  private static void line(StringBuilder out, ObjectView.Entry entry, ZoneId zone) {
    out.append('\t').append(entry.key()).append(" = ");
    String value = entry.value();
    if (entry.name().equals("mtime")
        && !value.isEmpty()
        && value.chars().allMatch(Character::isDigit)) {
      out.append(CTIME.format(Instant.ofEpochSecond(Long.parseLong(value)).atZone(zone)))
          .append('\n');
      return;
    }
    int indent = TAB + entry.key().length() + 3;
    int column = indent;
    String[] items = value.split(",", -1);
    for (int i = 0; i < items.length; i++) {
      String item = items[i];
      column += item.length() + 1;
      if (i > 0 && column >= WIDTH) {
        out.append('\n').append(" ".repeat(indent));
        column = item.length() + indent;
        item = item.stripLeading();
      }
      out.append(item);
      if (i < items.length - 1) {
        out.append(',');
      }
    }
    out.append('\n');
  }

  private static String title(ObjectType type) {
    return switch (type) {
      case SERVER -> "Server";
      case QUEUE -> "Queue";
      case NODE -> "Node";
      default -> throw new IllegalArgumentException("no title for " + type);
    };
  }
}
