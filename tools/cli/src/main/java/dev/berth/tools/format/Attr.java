package dev.berth.tools.format;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One attribute as Torque's status replies carry it: a name, an optional resource ({@code
 * Resource_List} + {@code walltime}) and a value. The kind tells the JSON and XML writers how to
 * render the value: {@link Kind#TIME} values are epoch seconds (qstat -f and JSON print them as
 * ctime dates, XML as the number), {@link Kind#ENTRIES} carry name=value pairs (Variable_List) that
 * JSON writes as an object, {@link Kind#LIST} items (the values of its entries) that JSON writes as
 * an array. Text and XML always use {@link #value}.
 */
public record Attr(
    String name,
    String resource,
    String value,
    Kind kind,
    List<Map.Entry<String, String>> entries) {
  public enum Kind {
    TEXT,
    NUMBER,
    TIME,
    ENTRIES,
    LIST
  }

  public Attr {
    entries = List.copyOf(entries);
  }

  public static Attr text(String name, String value) {
    return new Attr(name, null, value, Kind.TEXT, List.of());
  }

  public static Attr text(String name, String resource, String value) {
    return new Attr(name, resource, value, Kind.TEXT, List.of());
  }

  public static Attr number(String name, long value) {
    return new Attr(name, null, Long.toString(value), Kind.NUMBER, List.of());
  }

  public static Attr number(String name, String resource, long value) {
    return new Attr(name, resource, Long.toString(value), Kind.NUMBER, List.of());
  }

  public static Attr time(String name, long epochSeconds) {
    return new Attr(name, null, Long.toString(epochSeconds), Kind.TIME, List.of());
  }

  public static Attr time(String name, String resource, long epochSeconds) {
    return new Attr(name, resource, Long.toString(epochSeconds), Kind.TIME, List.of());
  }

  public static Attr entries(String name, String text, List<Map.Entry<String, String>> entries) {
    return new Attr(name, null, text, Kind.ENTRIES, entries);
  }

  public static Attr list(String name, String text, List<String> items) {
    return new Attr(
        name,
        null,
        text,
        Kind.LIST,
        items.stream().map(item -> Map.entry(item, item)).collect(Collectors.toList()));
  }

  /**
   * A name that may hold a dot ({@code resources_max.walltime}) as name and resource, the way
   * Torque's attribute lists split it.
   */
  public static Attr dotted(String dottedName, String value) {
    int dot = dottedName.indexOf('.');
    return dot < 0
        ? text(dottedName, value)
        : text(dottedName.substring(0, dot), dottedName.substring(dot + 1), value);
  }

  /** {@code name} or {@code name.resource}. */
  public String fullName() {
    return resource == null ? name : name + "." + resource;
  }
}
