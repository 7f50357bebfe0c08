package dev.berth.tools.pbsdsh;

import dev.berth.proto.TmOutput;
import java.io.PrintStream;
import java.util.function.Consumer;

/** Writes relayed task output as it arrives: stream 1 to stdout, anything else to stderr. */
public final class OutputRelay implements Consumer<TmOutput> {
  private final PrintStream out;
  private final PrintStream err;

  public OutputRelay(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public void accept(TmOutput output) {
    PrintStream to = output.getStream() == 1 ? out : err;
    byte[] data = output.getData().toByteArray();
    synchronized (to) {
      to.write(data, 0, data.length);
      to.flush();
    }
  }
}
