package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcTableTest {
  @TempDir Path proc;

  /** A /proc/PID/stat line: pid (comm) state ppid pgrp session ... */
  private void process(long pid, String comm, String state, long pgrp, long session)
      throws IOException {
    Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
    Files.writeString(
        dir.resolve("stat"),
        pid + " (" + comm + ") " + state + " 1 " + pgrp + " " + session + " 0 -1 4194560 0 0\n");
  }

  @Test
  void findsTheProcessesOfASession() throws IOException {
    process(100, "berth-starter", "S", 100, 100);
    process(101, "bash", "S", 101, 100);
    process(102, "evil) R 1 102 100 (x", "S", 102, 999); // a name with ") " in it
    process(103, "sleep", "S", 103, 100);
    process(200, "other", "S", 200, 200);
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("300")); // vanished: no stat file
    List<Long> pids = new ProcTable(proc).inSession(100);
    pids.sort(null);
    assertEquals(List.of(100L, 101L, 103L), pids);
  }

  @Test
  void zombiesAreNotCounted() throws IOException {
    process(100, "berth-starter", "S", 100, 100);
    process(104, "sleep", "Z", 104, 100);
    assertEquals(List.of(100L), new ProcTable(proc).inSession(100));
  }

  @Test
  void anUnreadableProcIsEmpty() {
    assertEquals(List.of(), new ProcTable(proc.resolve("missing")).inSession(1));
  }

  @Test
  void startTicksIsField22() throws IOException {
    Path dir = Files.createDirectories(proc.resolve("4242"));
    Files.writeString(
        dir.resolve("stat"),
        "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 120 0 0 0 1 2 0 0 20 0 1 0 987654 2000000"
            + " 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
    ProcTable table = new ProcTable(proc);
    assertEquals(987654, table.startTicks(4242));
    assertEquals(-1, table.startTicks(4243));
  }
}
