package dev.berth.server.mail.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.server.mail.Letter;
import dev.berth.server.mail.MailPoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real MTA runs, with stand-in sendmail scripts: what it is given, and its bounds. */
class SendmailTest {
  @TempDir Path dir;

  private Path script(String name, String body) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, "#!/bin/sh\n" + body);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    return file;
  }

  /** A sendmail that records its arguments, environment and input under {@code dir}/N.*. */
  private Path recorder() throws IOException {
    return script(
        "sendmail",
        "n=$(date +%s%N)\n"
            + "printf '%s\\n' \"$@\" > "
            + dir
            + "/$n.argv\n"
            + "env > "
            + dir
            + "/$n.env\n"
            + "cat > "
            + dir
            + "/$n.tmp && mv "
            + dir
            + "/$n.tmp "
            + dir
            + "/$n.mail\n");
  }

  private static Letter letter(String sendmail, String message) {
    return new Letter("1.srv", MailPoint.END, sendmail, "adm", message);
  }

  private List<Path> mails() throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".mail")).sorted().toList();
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s");
      }
      Thread.sleep(20);
    }
  }

  private static String read(Path file, String suffix) throws IOException {
    String name = file.getFileName().toString().replace(".mail", suffix);
    return Files.readString(file.resolveSibling(name));
  }

  @Test
  void theMessageGoesToSendmailDashTOnItsInputWithAMinimalEnvironment() throws Exception {
    Path sendmail = recorder();
    try (Sendmail outbox = new Sendmail(null, Duration.ofSeconds(10), 10)) {
      outbox.post(letter(sendmail.toString(), "To: a@example.org\nSubject: s\n\n.\nbody\n"));
      await(() -> uncheckedCount() == 1);
    }
    Path mail = mails().get(0);
    assertEquals("To: a@example.org\nSubject: s\n\n.\nbody\n", Files.readString(mail));
    assertEquals("-t\n-oi\n-f\nadm\n", read(mail, ".argv"));
    Set<String> names =
        Arrays.stream(read(mail, ".env").split("\n"))
            .map(line -> line.substring(0, line.indexOf('=')))
            .collect(Collectors.toCollection(TreeSet::new));
    names.removeAll(Set.of("PWD", "SHLVL", "_", "OLDPWD")); // what the shell adds itself
    assertEquals(Set.of("HOME", "LOGNAME", "PATH", "USER"), names);
  }

  @Test
  void withoutSendmailPathTheServersPathIsSearched() throws Exception {
    Path sendmail = recorder();
    Path other = Files.createDirectory(dir.resolve("empty"));
    try (Sendmail outbox = new Sendmail(other + ":relative:" + dir, Duration.ofSeconds(10), 10)) {
      assertEquals(sendmail, outbox.mta("").orElseThrow());
      assertEquals(Path.of("/opt/mta/sendmail"), outbox.mta("/opt/mta/sendmail").orElseThrow());
      outbox.post(letter("", "To: a\n\nx\n"));
      await(() -> uncheckedCount() == 1);
    }
  }

  @Test
  void aHangingSendmailIsKilledAndMailGoesOn() throws Exception {
    Path pid = dir.resolve("hung.pid");
    Path hung =
        script(
            "hung",
            "echo $$ > " + pid + ".tmp && mv " + pid + ".tmp " + pid + "\nexec sleep 600\n");
    Path sendmail = recorder();
    try (Sendmail outbox = new Sendmail(null, Duration.ofMillis(500), 10)) {
      outbox.post(letter(hung.toString(), "To: a\n\nlost\n"));
      outbox.post(letter(sendmail.toString(), "To: a\n\nthrough\n"));
      await(() -> uncheckedCount() == 1);
      assertEquals("To: a\n\nthrough\n", Files.readString(mails().get(0)));
      long hungPid = Long.parseLong(Files.readString(pid).trim());
      await(() -> ProcessHandle.of(hungPid).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void aFullQueueDropsLettersWithoutBlockingThePoster() throws Exception {
    Path gate = dir.resolve("gate");
    Path slow =
        script("slow", "while [ ! -e " + gate + " ]; do sleep 0.05; done\ncat >/dev/null\n");
    try (Sendmail outbox = new Sendmail(null, Duration.ofSeconds(20), 2)) {
      long start = System.nanoTime();
      for (int i = 0; i < 20; i++) { // 1 running, 2 queued, 17 dropped
        outbox.post(letter(slow.toString(), "To: a\n\nx\n"));
      }
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "never blocks");
      assertEquals(17, outbox.dropped());
      Files.createFile(gate);
    }
  }

  @Test
  void lettersGoOutInTheOrderTheyWerePosted() throws Exception {
    Path sendmail = recorder();
    try (Sendmail outbox = new Sendmail(null, Duration.ofSeconds(10), 100)) {
      for (int i = 0; i < 10; i++) {
        outbox.post(letter(sendmail.toString(), "To: a\n\n" + i + "\n"));
      }
      await(() -> uncheckedCount() == 10);
    }
    List<String> bodies = new java.util.ArrayList<>();
    for (Path mail : mails()) { // named by the time they were written
      bodies.add(Files.readString(mail).substring("To: a\n\n".length()).trim());
    }
    assertEquals(List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), bodies);
  }

  @Test
  void aMissingOrFailingSendmailCostsOnlyTheMail() throws Exception {
    Path failing = script("failing", "echo 'no route to the relay' >&2\nexit 75\n");
    Path sendmail = recorder();
    try (Sendmail outbox = new Sendmail(null, Duration.ofSeconds(10), 10)) {
      outbox.post(letter(dir.resolve("absent").toString(), "To: a\n\nlost\n"));
      outbox.post(letter(failing.toString(), "To: a\n\nlost\n"));
      outbox.post(letter(sendmail.toString(), "To: a\n\nthrough\n"));
      await(() -> uncheckedCount() == 1);
    }
  }

  private long uncheckedCount() {
    try {
      return mails().size();
    } catch (IOException e) {
      return -1;
    }
  }
}
