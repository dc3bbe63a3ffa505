package org.capsched.yarn;

import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the Rust core's log records go: each to the slf4j logger named after its Rust
 * module ({@code capsched::scheduler::nodes} logs as
 * {@code org.capsched.core.scheduler.nodes}), so the RM's log4j configuration and
 * {@code yarn daemonlog -setlevel} govern them like any RM logger. Called by the core
 * only. A daemon thread tells the core every second the most verbose level any of its
 * loggers has (read from log4j, the RM's logging), so a record below it costs the core
 * next to nothing.
 */
final class NativeLog {
  /** The logger every core module's logger sits under. */
  static final String ROOT = "org.capsched.core";
  private static final long CHECK_EVERY_MS = 1000;

  private static final Map<String, Logger> LOGGERS = new ConcurrentHashMap<>();
  private static final AtomicBoolean WATCHING = new AtomicBoolean();

  private NativeLog() {
  }

  /** Starts the daemon thread that reports the loggers' levels to the core (once). */
  static void watchLevels() {
    if (!WATCHING.compareAndSet(false, true)) {
      return;
    }
    ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "capsched-log-levels");
      t.setDaemon(true);
      return t;
    });
    watcher.scheduleWithFixedDelay(() -> {
      try {
        levelsChanged(maxLevel());
      } catch (Throwable t) {
        LoggerFactory.getLogger(NativeLog.class).warn("Cannot report log levels to the core", t);
      }
    }, 0, CHECK_EVERY_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * The most verbose level any core logger has (0 none ... 5 trace): the effective levels
   * of {@value #ROOT} and every log4j logger under it. Without log4j, 5: the core then asks
   * each module's logger.
   */
  static int maxLevel() {
    try {
      int max = level(org.apache.log4j.LogManager.getLogger(ROOT).getEffectiveLevel());
      Enumeration<?> loggers = org.apache.log4j.LogManager.getCurrentLoggers();
      while (loggers.hasMoreElements()) {
        org.apache.log4j.Logger l = (org.apache.log4j.Logger) loggers.nextElement();
        if (l.getName().startsWith(ROOT + ".")) {
          max = Math.max(max, level(l.getEffectiveLevel()));
        }
      }
      return max;
    } catch (LinkageError noLog4j) {
      return 5;
    }
  }

  private static int level(org.apache.log4j.Level level) {
    if (level == null) {
      return 5;
    }
    int l = level.toInt();
    return l <= org.apache.log4j.Level.TRACE_INT ? 5 : l <= org.apache.log4j.Level.DEBUG_INT ? 4
        : l <= org.apache.log4j.Level.INFO_INT ? 3 : l <= org.apache.log4j.Level.WARN_INT ? 2
        : l <= org.apache.log4j.Level.ERROR_INT ? 1 : 0;
  }

  /** Tells the core the most verbose level its loggers have now (and that levels may have moved). */
  private static native void levelsChanged(int maxLevel);

  /** The most verbose level enabled for {@code target}: 0 none, 1 error ... 5 trace. */
  static int level(String target) {
    Logger log = logger(target);
    if (log.isTraceEnabled()) {
      return 5;
    }
    if (log.isDebugEnabled()) {
      return 4;
    }
    if (log.isInfoEnabled()) {
      return 3;
    }
    if (log.isWarnEnabled()) {
      return 2;
    }
    return log.isErrorEnabled() ? 1 : 0;
  }

  /** One record, at Rust's level numbering (1 error ... 5 trace). */
  static void log(String target, int level, String message) {
    Logger log = logger(target);
    switch (level) {
    case 1:
      log.error(message);
      break;
    case 2:
      log.warn(message);
      break;
    case 3:
      log.info(message);
      break;
    case 4:
      log.debug(message);
      break;
    default:
      log.trace(message);
    }
  }

  private static Logger logger(String target) {
    return LOGGERS.computeIfAbsent(target, t -> LoggerFactory.getLogger(loggerName(t)));
  }

  /** {@code capsched::scheduler::nodes} → {@code org.capsched.core.scheduler.nodes}. */
  static String loggerName(String target) {
    String rest = target.startsWith("capsched") ? target.substring("capsched".length()) : "::" + target;
    return ROOT + rest.replace("::", ".");
  }
}
