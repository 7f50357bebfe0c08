package dev.berth.tools.pbsdsh;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Catches signals sent to the command (Ctrl-C, a job being deleted) so it can pass them on to its
 * tasks instead of dying and leaving them behind. Tests hand in their own.
 */
@FunctionalInterface
public interface SignalTrap {
  /** The process's real signals, through {@code sun.misc.Signal}. */
  SignalTrap OS = SignalTrap::installOs;

  /**
   * Calls {@code handler} with the signal's number whenever one of {@code names} ({@code "INT"},
   * {@code "TERM"}, {@code "HUP"}) arrives, until the returned handle is closed, which restores the
   * previous handlers.
   */
  Installed install(List<String> names, IntConsumer handler);

  /** Installed handlers; closing puts the previous ones back. */
  interface Installed extends AutoCloseable {
    @Override
    void close();
  }

  private static Installed installOs(List<String> names, IntConsumer handler) {
    List<Signal> signals = new ArrayList<>();
    List<SignalHandler> previous = new ArrayList<>();
    for (String name : names) {
      Signal signal = new Signal(name);
      try {
        previous.add(Signal.handle(signal, caught -> handler.accept(caught.getNumber())));
        signals.add(signal);
      } catch (IllegalArgumentException e) {
        // the JVM keeps this signal for itself (-Xrs, or a debugger): leave it alone
      }
    }
    return () -> {
      for (int i = 0; i < signals.size(); i++) {
        Signal.handle(signals.get(i), previous.get(i));
      }
    };
  }
}
