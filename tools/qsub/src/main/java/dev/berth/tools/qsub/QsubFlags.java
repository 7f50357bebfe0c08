package dev.berth.tools.qsub;

import java.util.Map;
import java.util.Optional;

/**
 * The option letters qsub and qalter accept, and what Berth says about the Torque 6 options it does
 * not support. Every unsupported option is refused (nothing is submitted): silently dropping one
 * could run the job differently from what its author asked for.
 */
final class QsubFlags {
  /** Torque 6 qsub's getopt string; {@code -:} makes {@code --version} an option. */
  static final String QSUB =
      "a:A:b:c:C:d:D:e:EfF:hi:Ij:J:k:K:l:L:m:M:nN:o:p:P:q:r:S:t:T:u:v:Vw:W:Xxz-:";

  /** Torque's qalter flag set; here {@code -h} takes a hold list. */
  static final String QALTER = "a:A:c:e:h:j:k:l:m:M:N:o:p:r:S:t:W:-:";

  static final String QSUB_USAGE =
      "usage: qsub [-a date_time] [-A account] [-c checkpoint] [-C prefix] [-d path] [-e path]"
          + " [-h] [-I] [-j oe|eo|n] [-k keep] [-l resource_list] [-m mail_options]"
          + " [-M user_list] [-n] [-N name] [-o path] [-p priority] [-q destination] [-r y|n]"
          + " [-S shell] [-t array_request] [-v variable_list] [-V] [-w path] [-W attr=value]"
          + " [-x] [-z] [--version] [script | command]";

  static final String QALTER_USAGE =
      "usage: qalter [-a date_time] [-A account] [-c checkpoint] [-e path] [-h hold_list]"
          + " [-j oe|eo|n] [-k keep] [-l resource_list] [-m mail_options] [-M user_list]"
          + " [-N name] [-o path] [-p priority] [-r y|n] [-S shell] [-t array_request]"
          + " [-W attr=value] job_id...";

  private static final Map<Character, String> UNSUPPORTED =
      Map.ofEntries(
          Map.entry(
              'X', "X11 forwarding is not available; use qsub -I without -X (a terminal session)"),
          Map.entry(
              'L',
              "Torque 6 NUMA requests are not available; ask for nodes and cores with"
                  + " -l nodes=N:ppn=M (memory with -l mem=SIZE or -l pmem=SIZE)"),
          Map.entry(
              'F',
              "script arguments are not available; pass values with -v NAME=value and read"
                  + " $NAME in the script"),
          Map.entry(
              'P',
              "in Torque -P names a proxy user (root only), in PBS Pro a project; to charge an"
                  + " account use -A ACCOUNT"),
          Map.entry('J', "-J is PBS Pro's array option; use -t instead (-t 1-10, -t 1-100%5)"),
          Map.entry('D', "root directories (chroot) are not available; remove the option"),
          Map.entry('u', "jobs always run as the submitting user; remove the option"),
          Map.entry('i', "idle slot limits are not available; limit subjobs with -t RANGE%N"),
          Map.entry('K', "remove the option"),
          Map.entry('b', "qsub does not retry the server, so there is nothing to set; remove it"),
          Map.entry('E', "for a node-exclusive job use -n"),
          Map.entry('T', "per-job prologue/epilogue scripts are not available; remove the option"),
          Map.entry('f', "fault-tolerant jobs are not available; remove the option"));

  private QsubFlags() {}

  /** Why {@code option} is refused, as a complete message; empty when it is supported. */
  static Optional<String> unsupported(char option) {
    String why = UNSUPPORTED.get(option);
    return why == null ? Optional.empty() : Optional.of("-" + option + " is not supported: " + why);
  }
}
