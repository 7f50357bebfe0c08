package dev.berth.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering STYLE.md asks for, checked on the compiled classes: state and decisions are pure (no
 * journal, storage, clock or actors), the scheduler's policy is pure, the CLIs carry no daemon
 * code, only the OS layers (the mom's, the server's mail transfer agent) and the daemon launcher
 * start processes, and the mom's roles (mother superior, sister) stay apart from each other and
 * from what they share.
 */
class ArchitectureTest {
  static JavaClasses classes;

  @BeforeAll
  static void load() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.berth");
  }

  @Test
  void stateIsPure() {
    noClasses()
        .that()
        .resideInAPackage("dev.berth.server.state..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.berth.server.journal..",
            "dev.berth.server.command..",
            "dev.berth.server.endpoint..",
            "org.rocksdb..",
            "org.apache.kafka..",
            "org.apache.pekko..",
            "java.io..",
            "java.nio.file..")
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Clock.class)
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .check(classes);
  }

  @Test
  void decisionsReadNoClockAndDoNoIo() {
    noClasses()
        .that()
        .resideInAPackage("dev.berth.server.command..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.berth.server.journal..",
            "dev.berth.server.endpoint..",
            "org.rocksdb..",
            "org.apache.kafka..",
            "org.apache.pekko..",
            "java.nio.file..")
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Clock.class)
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .check(classes);
  }

  @Test
  void schedulingPolicyIsPure() {
    noClasses()
        .that()
        .resideInAPackage("dev.berth.scheduler..")
        .and()
        .haveSimpleNameNotEndingWith("Actor")
        .and()
        .haveNameNotMatching(".*Actor\\$.*")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.pekko..", "dev.berth.server..", "java.nio.file..")
        .check(classes);
  }

  @Test
  void onlyTheOsLayersAndTheLauncherStartProcesses() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.berth.mom.os..",
            "dev.berth.daemon..",
            "dev.berth.server.mail.os..",
            "dev.berth.tools.qsub.os..")
        .should()
        .dependOnClassesThat()
        .areAssignableTo(ProcessBuilder.class)
        .orShould()
        .callMethod(Runtime.class, "exec", String.class)
        .check(classes);
  }

  @Test
  void momJobLogicTouchesNoOperatingSystemDirectly() {
    noClasses()
        .that()
        .resideInAPackage("dev.berth.mom.job..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.nio.file.attribute..", "org.apache.pekko..")
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(ProcessBuilder.class)
        .check(classes);
  }

  @Test
  void theMomsRolesStayApart() {
    // a job's parts on a node and the task manager serve both roles, and know neither
    noClasses()
        .that()
        .resideInAnyPackage("dev.berth.mom.nodejob..", "dev.berth.mom.tm..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.berth.mom.lifecycle..", "dev.berth.mom.sister..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.berth.mom.nodejob..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.berth.mom.tm..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.berth.mom.lifecycle..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.berth.mom.sister..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.berth.mom.sister..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.berth.mom.lifecycle..")
        .check(classes);
  }

  @Test
  void commandLineToolsCarryNoDaemonCode() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.berth.tools..", "dev.berth.client..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.pekko..",
            "org.rocksdb..",
            "dev.berth.server..",
            "dev.berth.mom..",
            "dev.berth.scheduler..",
            "picocli..")
        .check(classes);
  }
}
