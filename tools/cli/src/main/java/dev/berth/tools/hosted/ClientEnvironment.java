package dev.berth.tools.hosted;

import dev.berth.proto.RunCommand;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The client's environment as far as it sent it: the variables every command reads, each either
 * with its value or named as unset, or the whole environment. Asking for any other variable, or for
 * all of them, ends the run with {@link NeedsInput#environment()} so that the client sends the
 * rest; which variables come first is the client's choice and only saves a round trip.
 */
final class ClientEnvironment extends AbstractMap<String, String> {
  private final Map<String, String> known = new HashMap<>();
  private final Set<String> unset;
  private final boolean whole;

  ClientEnvironment(RunCommand command) {
    for (String entry : command.getEnvironmentList()) {
      int eq = entry.indexOf('=');
      if (eq > 0) {
        known.putIfAbsent(entry.substring(0, eq), entry.substring(eq + 1));
      }
    }
    this.unset = Set.copyOf(command.getUnsetList());
    this.whole = command.getWholeEnvironment();
  }

  @Override
  public String get(Object name) {
    String value = known.get(name);
    if (value == null) {
      answered(name);
    }
    return value;
  }

  @Override
  public boolean containsKey(Object name) {
    if (known.containsKey(name)) {
      return true;
    }
    answered(name);
    return false;
  }

  @Override
  public Set<Entry<String, String>> entrySet() {
    if (!whole) {
      throw NeedsInput.environment();
    }
    return known.entrySet();
  }

  /** Whether the client said whether {@code name} is set; if not, the run needs the rest. */
  private void answered(Object name) {
    if (!whole && !unset.contains(name)) {
      throw NeedsInput.environment();
    }
  }
}
