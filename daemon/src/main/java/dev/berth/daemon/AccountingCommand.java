package dev.berth.daemon;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.AccountingFile;
import dev.berth.proto.AccountingRequest;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The accounting files of a range of days made again from the journal by the running server (its
 * managers only), as it wrote them: for a day its disk lost, or to check the files against it.
 */
@Command(
    name = "accounting",
    description =
        "Make the accounting files of a range of days again from the journal (managers only).")
final class AccountingCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Option(names = "--socket", paramLabel = "PATH", description = "Client socket path.")
  Path socket;

  @Option(
      names = "--from",
      paramLabel = "YYYYMMDD",
      description = "First day (default: the first).")
  String from = "";

  @Option(names = "--to", paramLabel = "YYYYMMDD", description = "Last day (default: the last).")
  String to = "";

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Write one file a day here (YYYYMMDD, replacing any); default: print them.")
  Path dir;

  @Override
  public Integer call() throws IOException {
    Response r;
    try (BerthClient client = BerthClient.connect(home.socket(socket))) {
      r =
          client.call(
              Request.newBuilder()
                  .setAccounting(AccountingRequest.newBuilder().setFrom(from).setTo(to)));
    } catch (ServerUnavailableException e) {
      System.err.println("berth accounting: " + e.getMessage());
      return 1;
    }
    if (r.hasError()) {
      System.err.println("berth accounting: " + r.getError().getMessage());
      return 1;
    }
    for (AccountingFile f : r.getAccounting().getFilesList()) {
      if (dir == null) {
        System.out.print(f.getText().toStringUtf8());
      } else {
        write(f);
      }
    }
    System.out.flush();
    if (dir != null) {
      System.err.printf(
          "berth accounting: %d files in %s%n", r.getAccounting().getFilesCount(), dir);
    }
    return 0;
  }

  private void write(AccountingFile f) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(f.getName());
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
    }
    Files.write(
        file,
        f.getText().toByteArray(),
        StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING,
        LinkOption.NOFOLLOW_LINKS);
  }
}
