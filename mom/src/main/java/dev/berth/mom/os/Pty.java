package dev.berth.mom.os;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The master side of a pseudo-terminal, on whose {@link #slave()} an interactive job's shell runs
 * (berth-starter --terminal): what the session writes is {@link #read}, keystrokes are {@link
 * #write}. One thread may read while another writes and a third resizes or closes.
 *
 * <p>{@link #close()} wakes a thread blocked in read or write and releases the master once no
 * thread uses it any more; the kernel then hangs up the slave and the session's leader gets SIGHUP,
 * as when a terminal's line drops. A plain close(2) would do neither: it wakes no blocked read(2)
 * on Linux, and that read keeps the master open.
 */
public final class Pty implements Closeable {
  private final int master;
  private final int wakeup;
  private final Path slave;
  private final Object lock = new Object();
  private int inUse; // threads in a native call on the fds: they are released only after the last
  private boolean closed;

  private Pty(int master, int wakeup, Path slave) {
    this.master = master;
    this.wakeup = wakeup;
    this.slave = slave;
  }

  /** A new pseudo-terminal; its slave is owned by root, mode 0600, until a session takes it. */
  public static Pty open() throws IOException {
    NativeLibrary.require();
    int[] fds = new int[2];
    String slave = openMaster(fds);
    return new Pty(fds[0], fds[1], Path.of(slave));
  }

  /** The slave device, /dev/pts/N. */
  public Path slave() {
    return slave;
  }

  /**
   * Blocks until the session wrote something and returns how many bytes of it are in {@code buf}
   * from {@code off}; -1 at the end: every slave descriptor is closed (the session ended), or this
   * terminal was closed.
   */
  public int read(byte[] buf, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, buf.length);
    if (len == 0) {
      return 0;
    }
    if (!enter()) {
      return -1;
    }
    try {
      return read(master, wakeup, buf, off, len);
    } finally {
      leave();
    }
  }

  /**
   * Writes all of {@code len} bytes of {@code buf} from {@code off} as typed input, blocking while
   * the session does not read. Before the session opened the slave they wait in the terminal.
   *
   * @throws IOException when the session has closed the slave or this terminal is closed
   */
  public void write(byte[] buf, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, buf.length);
    if (!enter()) {
      throw new IOException("the pseudo-terminal " + slave + " is closed");
    }
    try {
      write(master, wakeup, buf, off, len);
    } finally {
      leave();
    }
  }

  /**
   * Sets the terminal's size; the kernel sends SIGWINCH to the foreground process group, so a
   * full-screen program redraws.
   */
  public void resize(int rows, int columns) throws IOException {
    if (rows < 0 || rows > 0xffff || columns < 0 || columns > 0xffff) {
      throw new IllegalArgumentException("no terminal has " + rows + " rows and " + columns);
    }
    if (!enter()) {
      throw new IOException("the pseudo-terminal " + slave + " is closed");
    }
    try {
      resize(master, rows, columns);
    } finally {
      leave();
    }
  }

  /**
   * Makes the terminal pass input as it comes, for a session whose input is a file or a pipe: no
   * echo, no signal keys, and output without the carriage returns a terminal adds; lines and end of
   * input (Ctrl-D) stay a terminal's.
   */
  public void passInput() throws IOException {
    if (!enter()) {
      throw new IOException("the pseudo-terminal " + slave + " is closed");
    }
    try {
      passInput(master);
    } finally {
      leave();
    }
  }

  /** Hangs the terminal up; a blocked read returns -1, a blocked write fails. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      wake(wakeup);
      if (inUse == 0) {
        release(master, wakeup);
      }
    }
  }

  private boolean enter() {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      inUse++;
      return true;
    }
  }

  private void leave() {
    synchronized (lock) {
      if (--inUse == 0 && closed) {
        release(master, wakeup);
      }
    }
  }

  private static native String openMaster(int[] fds) throws IOException;

  private static native int read(int master, int wakeup, byte[] buf, int off, int len)
      throws IOException;

  private static native void write(int master, int wakeup, byte[] buf, int off, int len)
      throws IOException;

  private static native void resize(int master, int rows, int columns) throws IOException;

  private static native void passInput(int master) throws IOException;

  private static native void wake(int wakeup);

  private static native void release(int master, int wakeup);
}
