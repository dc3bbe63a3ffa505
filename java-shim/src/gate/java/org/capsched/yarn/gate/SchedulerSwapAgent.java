package org.capsched.yarn.gate;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * A Java agent for the RM test gate: wherever a ResourceManager (or a test) reads
 * {@code yarn.resourcemanager.scheduler.class} and would get Apache's CapacityScheduler —
 * the default, a yarn-site.xml, or a test that sets it in code, as Apache's tests
 * parameterized over scheduler types do — it gets RustCapacityScheduler instead. Nothing
 * else about a test changes, so a test that passes with Apache's scheduler and fails with
 * ours shows a difference an RM, an AM or a client would see (or a test that casts the
 * scheduler to Apache's class).
 */
public final class SchedulerSwapAgent {
  private SchedulerSwapAgent() {
  }

  /**
   * {@code swap} names our scheduler for Apache's; {@code keep} leaves the scheduler alone.
   * Either way, tests parameterized over scheduler types (ParameterizedSchedulerTestBase)
   * run their CAPACITY variant only.
   */
  public static void premain(String arguments, Instrumentation instrumentation) {
    AgentBuilder agent = new AgentBuilder.Default()
        .disableClassFormatChanges()
        .type(ElementMatchers.named(
            "org.apache.hadoop.yarn.server.resourcemanager.ParameterizedSchedulerTestBase"))
        .transform((builder, type, loader, module, domain) -> builder.visit(
            Advice.to(CapacityVariantOnly.class).on(ElementMatchers.named("getParameters"))));
    if ("swap".equals(arguments)) {
      agent = agent.type(ElementMatchers.named("org.apache.hadoop.conf.Configuration"))
          .transform((builder, type, loader, module, domain) -> builder.visit(
              Advice.to(SchedulerName.class).on(ElementMatchers.named("get")
                  .and(ElementMatchers.takesArgument(0, String.class))
                  .and(ElementMatchers.returns(String.class)))));
    } else if (!"keep".equals(arguments)) {
      throw new IllegalArgumentException("SchedulerSwapAgent takes 'swap' or 'keep', not '"
          + arguments + "'");
    }
    agent.installOn(instrumentation);
  }

  /** Inlined at the end of {@code ParameterizedSchedulerTestBase.getParameters()}. */
  static final class CapacityVariantOnly {
    private CapacityVariantOnly() {
    }

    @Advice.OnMethodExit
    static void keepCapacity(@Advice.Return(readOnly = false) Collection<Object[]> variants) {
      List<Object[]> kept = new ArrayList<>();
      for (Object[] variant : variants) {
        if ("CAPACITY".equals(String.valueOf(variant[0]))) {
          kept.add(variant);
        }
      }
      variants = kept;
    }
  }

  /** Inlined at the end of {@code Configuration.get(String)} and {@code get(String, String)}. */
  static final class SchedulerName {
    private SchedulerName() {
    }

    @Advice.OnMethodExit
    static void swap(@Advice.Argument(0) String name,
        @Advice.Return(readOnly = false) String value) {
      if ("yarn.resourcemanager.scheduler.class".equals(name)
          && "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
              .equals(value)) {
        value = "org.capsched.yarn.RustCapacityScheduler";
      }
    }
  }
}
