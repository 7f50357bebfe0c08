package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** cgroupfs: control files exist by themselves, and each write is one write(2). */
final class LinuxKernel implements Kernel {
  private final long self = ProcessHandle.current().pid();

  @Override
  public void write(Path file, String value) throws IOException {
    try {
      Files.writeString(file, value, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException("cannot write '" + value + "' to " + file + ": " + reason(e), e);
    }
  }

  @Override
  public void mkdir(Path dir) throws IOException {
    try {
      Files.createDirectory(dir);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  @Override
  public void rmdir(Path dir) throws IOException {
    Files.delete(dir);
  }

  @Override
  public void kill(long pid) {
    if (pid != self) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file (is the controller enabled here?)";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage();
  }
}
