package dev.berth.mom.job;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A lifecycle as data: its phases, the ones it begins in, and which phase may follow which (the
 * tables of docs/mom-job-states.md). Immutable once built.
 */
public final class PhaseTable<P extends Enum<P>> {
  private final Class<P> type;
  private final Set<P> first;
  private final Map<P, Set<P>> next;

  private PhaseTable(Class<P> type, Set<P> first, Map<P, Set<P>> next) {
    this.type = type;
    this.first = first;
    this.next = next;
  }

  /**
   * A table of {@code type}'s phases that begins in {@code first}; add its steps with {@link
   * #step}.
   */
  @SafeVarargs
  public static <P extends Enum<P>> PhaseTable<P> of(Class<P> type, P... first) {
    Map<P, Set<P>> next = new EnumMap<>(type);
    for (P phase : type.getEnumConstants()) {
      next.put(phase, EnumSet.noneOf(type));
    }
    return new PhaseTable<>(type, EnumSet.copyOf(Arrays.asList(first)), next);
  }

  /** {@code from} may be followed by each of {@code to}. */
  @SafeVarargs
  public final PhaseTable<P> step(P from, P... to) {
    Map<P, Set<P>> more = new EnumMap<>(next);
    Set<P> steps = EnumSet.copyOf(next.get(from));
    steps.addAll(Arrays.asList(to));
    more.put(from, steps);
    return new PhaseTable<>(type, first, more);
  }

  public Set<P> first() {
    return EnumSet.copyOf(first);
  }

  /** The phases that may follow {@code phase}. */
  public Set<P> next(P phase) {
    return EnumSet.copyOf(next.get(phase));
  }

  /** Whether {@code to} may follow {@code from}; a null {@code from} is the lifecycle's start. */
  public boolean allows(P from, P to) {
    return from == null ? first.contains(to) : next.get(from).contains(to);
  }

  public Class<P> type() {
    return type;
  }
}
