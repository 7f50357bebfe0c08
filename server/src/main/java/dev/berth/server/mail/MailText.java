package dev.berth.server.mail;

import dev.berth.core.ControlCharacters;
import dev.berth.core.CpuRanges;
import dev.berth.core.UsedResources;
import dev.berth.proto.Job;
import dev.berth.proto.ResourcesUsed;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The text of a job mail as Torque writes it ({@code write_email}, {@code svr_format_job}): {@code
 * To:}, {@code Subject:} and {@code Precedence: bulk} headers, a blank line, and the body, both
 * from format strings with Torque's escapes.
 */
public final class MailText {
  /**
   * The longest message made, in characters: a body format of many {@code %R} or a long reason
   * cannot make a mail (and the queue of them) grow without bound. A longer one is cut, and says
   * so.
   */
  public static final int MAX_CHARS = 64 * 1024;

  private MailText() {}

  /** What the escapes of a format stand for in one mail. */
  record Fields(
      String jobId,
      String jobName,
      String execHost,
      MailPoint point,
      String detail,
      String errorPath,
      String outputPath,
      String owner,
      String queue,
      String workDir,
      List<String> requested,
      List<String> used) {

    static Fields of(Job job, MailPoint point, String detail) {
      String out = job.getOutputPath();
      String err = job.getErrorPath();
      switch (job.getJoinPath()) {
        case "oe" -> err = out;
        case "eo" -> out = err;
        default -> {}
      }
      Map<String, String> requested = new TreeMap<>(job.getResources().getValuesMap());
      return new Fields(
          job.getId(),
          job.getName(),
          CpuRanges.execHost(job.getExecNodesList()),
          point,
          detail,
          err,
          out,
          job.getOwner(),
          job.getQueue(),
          job.getInitWorkDir(),
          requested.entrySet().stream().map(r -> r.getKey() + "=" + r.getValue()).toList(),
          job.hasResourcesUsed()
              ? UsedResources.of(job.getResourcesUsed()).stream()
                  .map(UsedResources.Item::pair)
                  .toList()
              : List.of());
    }
  }

  /** The whole message sendmail reads, headers first. */
  public static String message(
      MailSettings s, List<String> to, Job job, MailPoint point, String detail) {
    Fields f = Fields.of(job, point, detail);
    String body = s.bodyFormat() != null ? s.bodyFormat() : defaultBody(f);
    String message =
        "To: "
            + String.join(",", to)
            + "\nSubject: "
            + oneLine(format(s.subjectFormat(), f))
            + "\nPrecedence: bulk\n\n"
            + visible(format(body, f));
    if (message.length() <= MAX_CHARS) {
      return message;
    }
    return message.substring(0, MAX_CHARS)
        + "\n[the message was cut: it had "
        + message.length()
        + " characters]\n";
  }

  /** Torque's body when mail_body_fmt is not set: lines without a value are left out. */
  static String defaultBody(Fields f) {
    StringBuilder fmt = new StringBuilder("PBS Job Id: %i\nJob Name:   %j\n");
    if (!f.execHost().isEmpty()) {
      fmt.append("Exec host:  %h\n");
    }
    fmt.append("%m\n");
    if (!f.detail().isEmpty()) {
      fmt.append("%d\n");
    }
    if (!f.errorPath().isEmpty()) {
      fmt.append("Error_Path: %k\n");
    }
    if (!f.outputPath().isEmpty()) {
      fmt.append("Output_Path: %l\n");
    }
    return fmt.toString();
  }

  /**
   * {@code fmt} with its escapes replaced. An escape Torque does not know is written as it stands:
   * the {@code %} or backslash, and reading goes on with the character after it.
   */
  static String format(String fmt, Fields f) {
    StringBuilder out = new StringBuilder(fmt.length() + 256);
    int i = 0;
    while (i < fmt.length()) {
      char c = fmt.charAt(i);
      char next = i + 1 < fmt.length() ? fmt.charAt(i + 1) : '\0';
      String expansion =
          switch (c) {
            case '\\' -> backslash(next);
            case '%' -> percent(next, f);
            default -> null;
          };
      if (expansion == null) {
        out.append(c);
        i++;
      } else {
        out.append(expansion);
        i += 2;
      }
    }
    return out.toString();
  }

  private static String backslash(char c) {
    return switch (c) {
      case 'n' -> "\n";
      case 't' -> "\t";
      case '\\', '\'', '"' -> String.valueOf(c);
      default -> null;
    };
  }

  private static String percent(char c, Fields f) {
    return switch (c) {
      case 'd' -> f.detail();
      case 'h' -> f.execHost();
      case 'i' -> f.jobId();
      case 'j' -> f.jobName();
      case 'k' -> f.errorPath();
      case 'l' -> f.outputPath();
      case 'm', 'r' -> f.point().message();
      case 'o' -> f.owner();
      case 'q' -> f.queue();
      case 'R' -> summary("Resources Requested Summary\n", f.requested());
      case 'u' -> summary("Resources Used Summary\n", f.used());
      case 'w' -> f.workDir();
      default -> null;
    };
  }

  private static String summary(String title, List<String> resources) {
    if (resources.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder(title);
    resources.forEach(r -> out.append('\t').append(r).append('\n'));
    return out.toString();
  }

  /**
   * The end of a job as Torque's obit writes it into the mail: {@code Exit_status=N}, then a line
   * per resource used, valued as qstat shows them.
   */
  public static String exitDetail(int exitStatus, ResourcesUsed used) {
    StringBuilder out = new StringBuilder("Exit_status=").append(exitStatus);
    UsedResources.of(used).forEach(r -> out.append("\nresources_used.").append(r.pair()));
    return out.toString();
  }

  /**
   * A header's value on one line: every control character (a newline from {@code \n} or from a
   * value) becomes a space, so that nothing can start another header.
   */
  static String oneLine(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(ControlCharacters.is(c) ? ' ' : c);
    }
    return out.toString();
  }

  /**
   * The body with lines and tabs kept and every other control character escaped ({@code \x1b}), as
   * the commands print them: a reason a node reported cannot send terminal escapes to a reader.
   */
  static String visible(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(
          c != '\n' && c != '\t' && ControlCharacters.is(c) ? ControlCharacters.escape(c) : c);
    }
    return out.toString();
  }
}
