package dev.berth.server.command;

import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One settable attribute of the server, a queue or a node: its type decides how a value is checked
 * and normalized and what {@code +=} and {@code -=} mean.
 */
record AttributeSpec(String name, Type type, boolean resource, boolean readOnly) {
  enum Type {
    BOOLEAN,
    INTEGER,
    STRING,
    LIST,
    RESOURCE
  }

  static AttributeSpec of(String name, Type type) {
    return new AttributeSpec(name, type, type == Type.RESOURCE, false);
  }

  static AttributeSpec readOnly(String name, Type type) {
    return new AttributeSpec(name, type, false, true);
  }

  /** The new text value after {@code op} on {@code current} (null = unset). */
  String combine(Attribute a, String current) {
    String label = a.getResource().isEmpty() ? name : name + "." + a.getResource();
    if (readOnly) {
      throw new CommandException(
          Error.Code.READ_ONLY_ATTRIBUTE, "attribute " + label + " is read-only");
    }
    if (a.getOp() == Attribute.Op.UNSET) {
      return null;
    }
    String value = normalize(label, a);
    return switch (a.getOp()) {
      case SET -> value;
      case INCR -> increment(label, current, value, +1);
      case DECR -> increment(label, current, value, -1);
      default -> throw new CommandException(Error.Code.INVALID_REQUEST, "bad operator");
    };
  }

  private String normalize(String label, Attribute a) {
    String v = a.getValue().trim();
    switch (type) {
      case BOOLEAN:
        return switch (v.toLowerCase(Locale.ROOT)) {
          case "true", "t", "yes", "y", "1" -> "True";
          case "false", "f", "no", "n", "0" -> "False";
          default -> throw bad(label, v, "expected True or False");
        };
      case INTEGER:
        try {
          return Long.toString(Long.parseLong(v));
        } catch (NumberFormatException e) {
          throw bad(label, v, "expected a whole number");
        }
      case LIST:
        return String.join(",", items(v));
      case RESOURCE:
        if (a.getResource().isEmpty()) {
          throw bad(label, v, "name the resource, e.g. " + name + ".walltime");
        }
        return ResourceRules.normalize(a.getResource(), v);
      default:
        return v;
    }
  }

  private String increment(String label, String current, String value, int sign) {
    if (type == Type.INTEGER) {
      long base = current == null ? 0 : Long.parseLong(current);
      return Long.toString(base + sign * Long.parseLong(value));
    }
    if (type != Type.LIST) {
      throw bad(label, value, "+= and -= apply only to numbers and lists");
    }
    Set<String> items = new LinkedHashSet<>(current == null ? List.of() : items(current));
    for (String item : items(value)) {
      if (sign > 0) {
        items.add(item);
      } else {
        items.remove(item);
      }
    }
    return items.isEmpty() ? null : String.join(",", items);
  }

  static List<String> items(String value) {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return items;
  }

  private static CommandException bad(String label, String value, String why) {
    return new CommandException(
        Error.Code.BAD_VALUE, "illegal value for " + label + ": '" + value + "' (" + why + ")");
  }
}
