package dev.berth.core.pbs;

/** Who may set an attribute; everyone who may see its object may read it. */
public enum SetBy {
  /** Nobody: the server keeps it (total_jobs, state_count). */
  NOBODY,
  /** The server's managers, with qmgr. */
  MANAGER,
  /** Operators too (a node's offline state, as pbsnodes -o sets it). */
  OPERATOR,
  /** Only root on a server host: a value the server acts on as its own user (sendmail_path). */
  ROOT_ON_SERVER,
  /** A job's owner, at qsub and with qalter while the job has not started. */
  OWNER,
  /** A job's owner at qsub only: what identifies the job or its history (its queue, its array). */
  SUBMITTER
}
