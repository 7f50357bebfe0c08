package dev.berth.tools.tmrsh;

import dev.berth.client.Getopt;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * pbs_tmrsh's command line, read as rsh and ssh read theirs: options, the host, then the remote
 * command, whose words are joined with single blanks and handed to a shell as sshd does, so the
 * quotes and {@code ;} that MPI launchers put in them mean what they would over ssh.
 *
 * @param host the node to run on
 * @param command the command's words as given (maybe none)
 * @param noStdin {@code -n}: the command's stdin is empty
 * @param login {@code -l user}, or null
 */
public record TmrshCommandLine(String host, List<String> command, boolean noStdin, String login) {
  public static final String USAGE =
      "usage: pbs_tmrsh [-n] [-l user] [-xXTtq46AaC] [-p port] [-o option] host command [args...]\n";

  /** ssh's options that take no argument and change nothing here, {@code -n} aside. */
  private static final String OPTIONS = "+nxXTtq46AaCl:p:o:";

  private static final String DEFAULT_SHELL = "/bin/sh";

  public static TmrshCommandLine parse(List<String> args) throws Getopt.UsageException {
    Getopt.Result parsed = Getopt.parse(OPTIONS, args);
    boolean noStdin = false;
    String login = null;
    for (Getopt.Option option : parsed.options()) {
      if (option.is('n')) {
        noStdin = true;
      } else if (option.is('l')) {
        login = option.value();
      }
    }
    List<String> operands = parsed.operands();
    if (operands.isEmpty()) {
      throw new Getopt.UsageException("no host given");
    }
    return new TmrshCommandLine(
        operands.get(0), operands.subList(1, operands.size()), noStdin, login);
  }

  /** Why {@code user} cannot have this run, if it cannot: tasks always run as the job's owner. */
  public Optional<String> refusal(String user) {
    if (login == null || login.equals(user)) {
      return Optional.empty();
    }
    return Optional.of("cannot run as " + login + ": tasks run as the job's owner");
  }

  /** The remote command line, as sshd receives it. */
  public String joined() {
    return String.join(" ", command);
  }

  /** The task's argv: the user's shell ({@code $SHELL} if absolute, else /bin/sh) -c the line. */
  public List<String> argv(Map<String, String> env) {
    String shell = env.get("SHELL");
    if (shell == null || !shell.startsWith("/")) {
      shell = DEFAULT_SHELL;
    }
    return List.of(shell, "-c", joined());
  }
}
