package dev.berth.server.query;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last status line each mom reported (load, free memory, ...). Telemetry, not state: it is not
 * journaled and starts empty after a restart, like Torque's node status.
 */
public final class NodeTelemetry {
  private final Map<String, Map<String, String>> status = new ConcurrentHashMap<>();

  public void record(String node, Map<String, String> items) {
    status.put(node, Map.copyOf(items));
  }

  public Map<String, String> status(String node) {
    return status.getOrDefault(node, Map.of());
  }
}
