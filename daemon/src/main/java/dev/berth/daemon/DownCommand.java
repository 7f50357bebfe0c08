package dev.berth.daemon;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Stops the embedded cluster cleanly: the server finishes what it accepted, writes a snapshot and
 * exits. Running jobs keep running; the moms find them again at the next {@code berth up}.
 */
@Command(name = "down", description = "Stop the embedded cluster (running jobs keep running).")
final class DownCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Option(names = "--timeout", defaultValue = "60", description = "Seconds to wait for it to stop.")
  int timeout;

  @Override
  public Integer call() throws Exception {
    BerthHome h = home.home();
    var running = Daemons.running(h);
    if (running.isEmpty()) {
      System.out.println("berth: not running (home " + h.root() + ")");
      return 0;
    }
    ProcessHandle p = running.get();
    p.destroy();
    try {
      p.onExit().get(timeout, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      System.err.println(
          "berth: pid " + p.pid() + " did not stop within " + timeout + " s; see " + h.log());
      return 1;
    }
    System.out.println("berth: stopped (pid " + p.pid() + ")");
    return 0;
  }
}
