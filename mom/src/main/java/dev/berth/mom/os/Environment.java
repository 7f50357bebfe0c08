package dev.berth.mom.os;

import java.util.Map;

/** What may go into a process environment: names without '=' or NUL, values without NUL. */
public final class Environment {
  private Environment() {}

  /** {@code NAME=VALUE}, or an exception naming what is wrong. */
  static String entry(String name, String value) {
    String problem = problem(name, value);
    if (!problem.isEmpty()) {
      throw new IllegalArgumentException(problem);
    }
    return name + "=" + value;
  }

  /** Why {@code env} cannot be a process environment, or "" if it can. */
  public static String check(Map<String, String> env) {
    for (var e : env.entrySet()) {
      String problem = problem(e.getKey(), e.getValue());
      if (!problem.isEmpty()) {
        return problem;
      }
    }
    return "";
  }

  private static String problem(String name, String value) {
    if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
      return "'" + name.replace("\0", "\\0") + "' is not a valid environment variable name";
    }
    if (value.indexOf('\0') >= 0) {
      return "the value of " + name + " holds a NUL byte";
    }
    return "";
  }
}
