package dev.berth.mom;

import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.Users;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.tm.TmSocket;
import java.time.Clock;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What every job on this node uses, the mother superior's side and the sisters' alike: the node's
 * configuration, its OS services, the job records, and the mom to report through. One value, built
 * once by the mom, so that a job actor's constructor names the job and not the node.
 *
 * @param tm the node's task-manager socket, or null when this mom cannot serve one
 */
public record JobServices(
    MomConfig config,
    Launcher launcher,
    Users users,
    JobRecords records,
    Isolation isolation,
    ActorRef<MomActor.Command> mom,
    TmSocket tm,
    Clock clock) {}
