package dev.berth.server.mail.os;

import dev.berth.server.mail.Letter;
import dev.berth.server.mail.Outbox;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends letters through the host's mail transfer agent: {@code sendmail -t -oi -f <mail_from>} with
 * the message on its standard input, so the MTA takes the recipients from the {@code To:} header
 * and no address becomes an argument; {@code -oi} keeps a line holding only a dot from ending the
 * message early.
 *
 * <p>The MTA runs on a thread of its own, never the server's, one letter at a time in the order the
 * events were committed (a job's begin mail goes before its end mail): a bounded queue ({@link
 * #QUEUE} letters, {@link #QUEUED_CHARS} characters; more are dropped and counted in the log), a
 * time limit per run ({@link #TIMEOUT}) after which the MTA and its children are killed, and a
 * minimal environment (PATH, HOME, USER, LOGNAME) in {@code /}, as the server's user. A failing,
 * missing or hanging MTA costs mail only, and a log line.
 */
public final class Sendmail implements Outbox {
  private static final Logger log = LoggerFactory.getLogger(Sendmail.class);

  /** Letters waiting for an MTA run; beyond that they are dropped. */
  public static final int QUEUE = 10_000;

  /** The most message text waiting, in characters (about 300 letters of the longest). */
  static final long QUEUED_CHARS = 16L << 20;

  /** The longest one MTA run may take before it is killed. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static final String PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

  /** Where sendmail lives when the server's PATH does not have it (Torque's configure looked). */
  private static final List<String> USUAL_PLACES = List.of("/usr/sbin", "/usr/lib");

  private static final int SHOWN_OUTPUT = 2048;
  private static final long QUIET_MILLIS = 60_000;

  private final List<Path> searchPath;
  private final Duration timeout;
  private final ThreadPoolExecutor senders;
  private final ScheduledExecutorService watchdog;
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong queuedChars = new AtomicLong();
  private final AtomicLong lastWarning = new AtomicLong();
  private final AtomicLong quieted = new AtomicLong();

  /**
   * @param serverPath the server's own PATH (may be null): where {@code sendmail} is looked for
   *     first when sendmail_path is not set
   */
  public Sendmail(String serverPath, Duration timeout, int queue) {
    this.searchPath = searchPath(serverPath);
    this.timeout = timeout;
    this.senders =
        new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queue), daemon("berth-mail"));
    this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("berth-mail-watchdog"));
  }

  /** The usual outbox: this process's PATH, {@link #TIMEOUT}, {@link #QUEUE}. */
  public static Sendmail start() {
    return new Sendmail(System.getenv("PATH"), TIMEOUT, QUEUE);
  }

  @Override
  public void post(Letter letter) {
    int size = letter.message().length();
    if (queuedChars.addAndGet(size) > QUEUED_CHARS) {
      queuedChars.addAndGet(-size);
      drop(letter);
      return;
    }
    try {
      senders.execute(
          () -> {
            queuedChars.addAndGet(-size);
            send(letter);
          });
    } catch (RejectedExecutionException e) {
      queuedChars.addAndGet(-size);
      drop(letter);
    }
  }

  private void drop(Letter letter) {
    long n = dropped.incrementAndGet();
    if (n == 1 || n % 1000 == 0) {
      log.warn(
          "job {}: mail dropped: {} letters are waiting for the mail transfer agent ({} dropped"
              + " so far)",
          letter.jobId(),
          senders.getQueue().size(),
          n);
    }
  }

  /** Letters dropped so far because the queue was full. */
  long dropped() {
    return dropped.get();
  }

  private void send(Letter letter) {
    Optional<Path> mta = mta(letter.sendmail());
    if (mta.isEmpty()) {
      warn(
          "job {}: no mail sent: no sendmail on the server's PATH or in {}; set it with qmgr -c"
              + " 'set server sendmail_path = /path/to/sendmail'",
          letter.jobId(),
          USUAL_PLACES);
      return;
    }
    List<String> argv = List.of(mta.get().toString(), "-t", "-oi", "-f", letter.from());
    ProcessBuilder builder =
        new ProcessBuilder(argv).directory(Path.of("/").toFile()).redirectErrorStream(true);
    Map<String, String> env = builder.environment();
    env.clear();
    env.put("PATH", PATH);
    env.put("HOME", System.getProperty("user.home", "/"));
    env.put("USER", System.getProperty("user.name", ""));
    env.put("LOGNAME", System.getProperty("user.name", ""));
    Process p;
    try {
      p = builder.start();
    } catch (IOException e) {
      warn("job {}: no mail sent: cannot run {}: {}", letter.jobId(), argv.get(0), e.getMessage());
      return;
    }
    AtomicBoolean killed = new AtomicBoolean();
    ScheduledFuture<?> kill =
        watchdog.schedule(
            () -> {
              killed.set(true);
              kill(p);
            },
            timeout.toMillis(),
            TimeUnit.MILLISECONDS);
    try {
      run(p, letter, argv, killed);
    } finally {
      kill.cancel(false);
    }
  }

  private void run(Process p, Letter letter, List<String> argv, AtomicBoolean killed) {
    try (OutputStream in = p.getOutputStream()) {
      in.write(letter.message().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // the MTA did not read it all (it failed, or was killed): its status tells
    }
    try {
      if (!p.waitFor(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS) || killed.get()) {
        kill(p);
        warn(
            "job {}: {} did not finish within {} s and was killed; mail may not have been sent",
            letter.jobId(),
            argv.get(0),
            timeout.toSeconds());
      } else if (p.exitValue() != 0) {
        warn(
            "job {}: {} exited with {}: mail may not have been sent: {}",
            letter.jobId(),
            argv.get(0),
            p.exitValue(),
            output(p));
      } else {
        log.debug("job {}: '{}' mail handed to {}", letter.jobId(), letter.point(), argv.get(0));
      }
    } catch (InterruptedException e) {
      kill(p);
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(p.getInputStream());
    }
  }

  private static void kill(Process p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }

  /** What the MTA wrote, as far as it is there without waiting, on one line. */
  private static String output(Process p) {
    try {
      InputStream out = p.getInputStream();
      byte[] text = out.readNBytes(Math.min(out.available(), SHOWN_OUTPUT));
      return new String(text, StandardCharsets.UTF_8).strip().replaceAll("\\p{Cntrl}+", " ");
    } catch (IOException e) {
      return "";
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      // nothing more to read
    }
  }

  /** The MTA to run: sendmail_path if set, else the first sendmail on the search path. */
  Optional<Path> mta(String configured) {
    if (!configured.isEmpty()) {
      return Optional.of(Path.of(configured));
    }
    return searchPath.stream()
        .map(dir -> dir.resolve("sendmail"))
        .filter(f -> Files.isRegularFile(f) && Files.isExecutable(f))
        .findFirst();
  }

  private static List<Path> searchPath(String serverPath) {
    List<Path> dirs = new ArrayList<>();
    if (serverPath != null) {
      for (String dir : serverPath.split(":")) {
        if (dir.startsWith("/")) { // a relative entry would depend on the server's directory
          dirs.add(Path.of(dir));
        }
      }
    }
    USUAL_PLACES.forEach(dir -> dirs.add(Path.of(dir)));
    return dirs;
  }

  /**
   * A warning, at most one a minute (the others at debug, counted): an MTA that always fails must
   * not fill the log with a line per job.
   */
  private void warn(String format, Object... args) {
    long now = System.currentTimeMillis();
    long last = lastWarning.get();
    if (now - last >= QUIET_MILLIS && lastWarning.compareAndSet(last, now)) {
      long skipped = quieted.getAndSet(0);
      log.warn(format, args);
      if (skipped > 0) {
        log.warn("{} more mail failures in the last minute (logged at debug)", skipped);
      }
    } else {
      quieted.incrementAndGet();
      log.debug(format, args);
    }
  }

  /** Lets queued letters go out for up to ten seconds, then stops. */
  @Override
  public void close() {
    senders.shutdown();
    try {
      if (!senders.awaitTermination(10, TimeUnit.SECONDS)) {
        log.warn("stopping with {} mails unsent", senders.getQueue().size());
        senders.shutdownNow();
      }
    } catch (InterruptedException e) {
      senders.shutdownNow();
      Thread.currentThread().interrupt();
    }
    watchdog.shutdownNow();
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread t = new Thread(runnable, name);
      t.setDaemon(true);
      return t;
    };
  }
}
