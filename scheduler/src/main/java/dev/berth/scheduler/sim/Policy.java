package dev.berth.scheduler.sim;

import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.Fifo;
import dev.berth.scheduler.RunDecision;
import java.util.List;
import java.util.Locale;

/** A scheduling policy a simulation can run: the server's own planning code, by name. */
public enum Policy {
  /** First in, first out, first fit; later jobs that fit pass one that does not. */
  FIFO {
    @Override
    public List<RunDecision> plan(ClusterView view, int maxDecisions) {
      return Fifo.plan(view, maxDecisions);
    }
  };

  public abstract List<RunDecision> plan(ClusterView view, int maxDecisions);

  /** The policy of this name ({@code fifo}), or an error listing the names there are. */
  public static Policy named(String name) {
    for (Policy p : values()) {
      if (p.name().toLowerCase(Locale.ROOT).equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "no scheduling policy '"
            + name
            + "'; there is: "
            + List.of(values()).toString().toLowerCase(Locale.ROOT));
  }
}
