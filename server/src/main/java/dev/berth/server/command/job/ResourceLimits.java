package dev.berth.server.command.job;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.Queue;
import dev.berth.proto.ResourceRequest;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.ResourceRules;
import dev.berth.server.state.ClusterState;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Queue and server resource defaults and limits ({@code resources_default.*}, {@code
 * resources_max.*}, {@code resources_min.*}); the queue's value wins over the server's.
 */
final class ResourceLimits {
  private ResourceLimits() {}

  /** Fills in resources the job did not request from the queue's, then the server's defaults. */
  static ResourceRequest withDefaults(ResourceRequest r, Queue queue, ClusterState s) {
    ResourceRequest.Builder b = r.toBuilder();
    String prefix = ServerAttributeNames.RESOURCES_DEFAULT + ".";
    for (Map<String, String> source : List.of(queue.getAttributesMap(), s.serverAttributes())) {
      source.forEach(
          (name, value) -> {
            if (name.startsWith(prefix)) {
              String resource = name.substring(prefix.length());
              boolean nodesLike =
                  resource.equals("nodes") || resource.equals("ncpus") || resource.equals("procs");
              boolean hasNodes =
                  b.containsValues("nodes")
                      || b.containsValues("ncpus")
                      || b.containsValues("procs");
              if (!b.containsValues(resource) && !(nodesLike && hasNodes)) {
                b.putValues(resource, value);
                ResourceRules.setTyped(b, resource, value);
              }
            }
          });
    }
    return b.build();
  }

  /** Refuses a request over a resources_max or under a resources_min of the queue or server. */
  static void check(Job job, Queue queue, ClusterState s) {
    for (Map.Entry<String, String> e : job.getResources().getValuesMap().entrySet()) {
      String name = e.getKey();
      long wanted = ResourceRules.magnitude(name, e.getValue());
      if (wanted < 0) {
        continue;
      }
      limit(queue.getAttributesMap(), s.serverAttributes(), "resources_max." + name)
          .ifPresentOrElse(
              max -> {
                if (wanted > ResourceRules.magnitude(name, max.value())) {
                  throw exceeds(name, e.getValue(), ">", max);
                }
              },
              () -> {});
      limit(queue.getAttributesMap(), Map.of(), "resources_min." + name)
          .ifPresent(
              min -> {
                if (wanted < ResourceRules.magnitude(name, min.value())) {
                  throw exceeds(name, e.getValue(), "<", min);
                }
              });
    }
  }

  private record Limit(String where, String value) {}

  private static Optional<Limit> limit(
      Map<String, String> queue, Map<String, String> server, String attribute) {
    if (queue.containsKey(attribute)) {
      return Optional.of(new Limit("queue", queue.get(attribute)));
    }
    if (server.containsKey(attribute)) {
      return Optional.of(new Limit("server", server.get(attribute)));
    }
    return Optional.empty();
  }

  private static CommandException exceeds(String name, String value, String op, Limit limit) {
    String which =
        op.equals(">") ? QueueAttributeNames.RESOURCES_MAX : QueueAttributeNames.RESOURCES_MIN;
    return new CommandException(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        "Job exceeds "
            + limit.where()
            + " resource limits: "
            + name
            + "="
            + value
            + " "
            + op
            + " "
            + which
            + "."
            + name
            + "="
            + limit.value());
  }
}
