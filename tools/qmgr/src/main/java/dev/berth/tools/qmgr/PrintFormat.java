package dev.berth.tools.qmgr;

import dev.berth.proto.Manage.ObjectType;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code qmgr print} output: a script that recreates the objects when fed back to qmgr, laid out as
 * Torque's. Read-only attributes ({@link AttributeCatalog#isReadOnly}) are left out; a node's state
 * is written only when it is offline (the one state an administrator sets). A list attribute gets
 * one {@code =} line for its first item and a {@code +=} line for each further one; any other value
 * that is empty or holds a blank, comma, {@code #}, {@code ;} or quote is quoted.
 */
final class PrintFormat {
  private PrintFormat() {}

  /** The section for objects of one type: its comment header, then each object. */
  static String script(ObjectType type, List<ObjectView> objects) {
    StringBuilder out = new StringBuilder();
    out.append(
        switch (type) {
          case SERVER -> "#\n# Set server attributes.\n#\n";
          case QUEUE -> "#\n# Create queues and set their attributes.\n#\n";
          case NODE -> "#\n# Create nodes and set their properties.\n#\n";
          default -> throw new IllegalArgumentException("cannot print " + type);
        });
    for (ObjectView object : objects) {
      object(out, object);
    }
    return out.toString();
  }

  private static void object(StringBuilder out, ObjectView object) {
    String prefix;
    switch (object.type()) {
      case QUEUE -> {
        out.append("#\n# Create and define queue ").append(object.name()).append("\n#\n");
        out.append("create queue ").append(object.name()).append('\n');
        prefix = "set queue " + object.name() + " ";
      }
      case NODE -> {
        out.append("#\n# Create and define node ").append(object.name()).append("\n#\n");
        out.append("create node ").append(object.name()).append('\n');
        prefix = "set node " + object.name() + " ";
      }
      default -> prefix = "set server ";
    }
    for (ObjectView.Entry entry : object.entries()) {
      for (String line : lines(object.type(), entry)) {
        out.append(prefix).append(line).append('\n');
      }
    }
  }

  /** The {@code attribute OP value} parts that set one attribute. */
  private static List<String> lines(ObjectType type, ObjectView.Entry entry) {
    String key = entry.key();
    String value = entry.value();
    if (AttributeCatalog.isReadOnly(type, entry.name())) {
      return List.of();
    }
    if (type == ObjectType.NODE && entry.name().equals("state")) {
      return List.of(value.split(",")).contains("offline")
          ? List.of(key + " = offline")
          : List.of();
    }
    if (!AttributeCatalog.isList(type, entry.name())) {
      return List.of(key + " = " + quote(value));
    }
    List<String> lines = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isEmpty()) {
        lines.add(key + (lines.isEmpty() ? " = " : " += ") + quote(item));
      }
    }
    return lines.isEmpty() ? List.of(key + " = \"\"") : lines;
  }

  /**
   * The value as qmgr reads it back: bare when it can be, else in double quotes, or in single
   * quotes when it holds a double quote. (qmgr has no escapes, so a value holding both kinds of
   * quote cannot be written back exactly.)
   */
  static String quote(String value) {
    boolean bare = !value.isEmpty();
    for (int i = 0; i < value.length() && bare; i++) {
      char c = value.charAt(i);
      bare = !Character.isWhitespace(c) && ",#;\"'".indexOf(c) < 0;
    }
    if (bare) {
      return value;
    }
    return value.indexOf('"') >= 0 && value.indexOf('\'') < 0
        ? "'" + value + "'"
        : "\"" + value + "\"";
  }
}
