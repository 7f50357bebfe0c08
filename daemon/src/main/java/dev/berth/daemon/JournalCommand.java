package dev.berth.daemon;

import dev.berth.server.journal.JournalException;
import dev.berth.server.journal.RocksJournal;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * Journal maintenance while the server is stopped: {@code check} reads every event and verifies it;
 * {@code recover} opens a journal whose log tail is damaged, keeping the intact events.
 */
@Command(name = "journal", description = "Check or recover the journal (server stopped).")
final class JournalCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Parameters(index = "0", paramLabel = "check|recover")
  String action;

  @Override
  public Integer call() {
    BerthHome h = home.home();
    if (Daemons.running(h).isPresent()) {
      System.err.println("berth: stop the server first (berth down)");
      return 1;
    }
    boolean recover = action.equals("recover");
    if (!recover && !action.equals("check")) {
      System.err.println("berth journal: unknown action '" + action + "' (check or recover)");
      return 2;
    }
    try (RocksJournal journal =
        recover ? RocksJournal.recover(h.journal()) : RocksJournal.open(h.journal())) {
      long[] count = {0};
      journal.replay(0, e -> count[0]++);
      System.out.println(
          "berth: journal "
              + h.journal()
              + " holds "
              + count[0]
              + " events, the last is "
              + journal.lastSeq()
              + (recover
                  ? " (events after a damaged record, if any, were dropped)"
                  : "; it is intact"));
      return 0;
    } catch (JournalException e) {
      System.err.println("berth: " + e.getMessage());
      return 1;
    }
  }
}
