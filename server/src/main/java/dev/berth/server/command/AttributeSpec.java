package dev.berth.server.command;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import dev.berth.core.Sizes;
import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.ValueType;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.server.command.config.QueueAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One attribute of the server, a queue or a node as the server checks it: its type (core's {@link
 * AttributeDef}) decides how a value is checked and normalized and what {@code +=} and {@code -=}
 * mean.
 */
public record AttributeSpec(String name, ValueType type, boolean resource, boolean readOnly) {
  /** The most shares one name may have: their sum over many names still fits in a long. */
  static final long MAX_SHARES = 1_000_000_000;

  /** How the server checks and combines values of {@code d} (core's vocabulary). */
  public static AttributeSpec of(AttributeDef d) {
    return new AttributeSpec(d.name(), d.type(), d.type().named(), d.readOnly());
  }

  /** The specs of {@code table}'s attributes, by name. */
  public static Map<String, AttributeSpec> of(AttributeTable table) {
    Map<String, AttributeSpec> specs = new LinkedHashMap<>();
    table.definitions().forEach(d -> specs.put(d.name(), of(d)));
    return Collections.unmodifiableMap(specs);
  }

  /** The spec of {@code table}'s attribute {@code name}, which the table must have. */
  public static AttributeSpec of(AttributeTable table, String name) {
    return of(table.find(name).orElseThrow());
  }

  /** The new text value after {@code op} on {@code current} (null = unset). */
  public String combine(Attribute a, String current) {
    String label = a.getResource().isEmpty() ? name : name + "." + a.getResource();
    if (readOnly) {
      throw new CommandException(
          Error.Code.READ_ONLY_ATTRIBUTE, "attribute " + label + " is read-only");
    }
    AttributeValues.check("an attribute name", label);
    if (a.getOp() == Attribute.Op.UNSET) {
      return null;
    }
    AttributeValues.check(label, a.getValue());
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
        return Long.toString(whole(label, v));
      case COUNT:
        long n = whole(label, v);
        if (n < 0) {
          throw bad(label, v, "expected 0 or more; unset it for no limit");
        }
        return Long.toString(n);
      case SIZE:
        try {
          return Sizes.parse(v).toString();
        } catch (BadValueException e) {
          throw bad(label, v, e.getMessage());
        }
      case DURATION:
        long seconds;
        try {
          seconds = Durations.parseSeconds(v);
        } catch (BadValueException e) {
          throw bad(label, v, e.getMessage());
        }
        if (seconds < 1) {
          throw bad(label, v, "expected a second or more");
        }
        return Long.toString(seconds);
      case LIST:
        return String.join(",", items(v));
      case SHARES:
        if (!a.getResource().matches("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")) {
          throw bad(label, v, "name the user or account, e.g. " + name + ".alice");
        }
        long shares = whole(label, v);
        if (shares < 1 || shares > MAX_SHARES) {
          throw bad(label, v, "expected 1 to " + MAX_SHARES + "; unset it for the default of 1");
        }
        return Long.toString(shares);
      case PREEMPT_MODE:
        String mode = v.toLowerCase(Locale.ROOT);
        if (!mode.equals(QueueAttributes.PREEMPT_OFF)
            && !mode.equals(QueueAttributes.PREEMPT_REQUEUE)
            && !mode.equals(QueueAttributes.PREEMPT_SUSPEND)) {
          throw bad(label, v, "expected off, requeue or suspend");
        }
        return mode;
      case RESOURCE:
        if (a.getResource().isEmpty()) {
          throw bad(label, v, "name the resource, e.g. " + name + ".walltime");
        }
        return ResourceRules.normalize(a.getResource(), v);
      default:
        return v;
    }
  }

  private static long whole(String label, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw bad(label, v, "expected a whole number");
    }
  }

  private String increment(String label, String current, String value, int sign) {
    if (type == ValueType.INTEGER || type == ValueType.COUNT) {
      long base = current == null ? 0 : Long.parseLong(current);
      long next;
      try {
        next = Math.addExact(base, Math.multiplyExact(sign, Long.parseLong(value)));
      } catch (ArithmeticException e) {
        throw bad(label, value, "the result does not fit in 64 bits");
      }
      if (type == ValueType.COUNT && next < 0) {
        throw bad(label, value, "the result would be below 0");
      }
      return Long.toString(next);
    }
    if (type != ValueType.LIST) {
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

  public static List<String> items(String value) {
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
        Error.Code.BAD_VALUE,
        "illegal value for " + label + ": '" + AttributeValues.shown(value) + "' (" + why + ")");
  }
}
