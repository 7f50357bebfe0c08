package dev.berth.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that runs with no other test class beside it. The integration tests run several
 * classes at once (it/pom.xml), each with its own cluster, home, cgroup root and ports; a class is
 * marked alone only for what really is the whole host's, and says which at its mark: it measures
 * how promptly a daemon answers under attack (a neighbour's load would be measured with it), or it
 * looks at every process of a user or of the host.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("alone")
@interface Alone {}
