package dev.berth.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that runs with no other test class beside it. The integration tests run several
 * classes at once (it/pom.xml), each with its own cluster, home, cgroup root and ports; a class is
 * marked alone only for what really is the whole host's, and says which at its mark: it compares
 * how promptly a daemon answers before and during an attack within a margin a neighbour's changing
 * load would use up, or it looks at every process of a user or of the host. Attack tests whose
 * bounds leave room for neighbours (an answer within seconds where a fraction of one is usual) run
 * with the others.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("alone")
@interface Alone {}
