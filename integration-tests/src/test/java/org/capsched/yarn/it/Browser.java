package org.capsched.yarn.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium (Debian's package, which the test command installs) loading a page as
 * an operator's browser would: scripts run, then the rendered DOM or a screenshot is
 * taken.
 */
final class Browser {
  private Browser() {
  }

  /** The page's DOM after its scripts ran. */
  static String dom(String url) throws IOException, InterruptedException {
    return run("--dump-dom", url);
  }

  /** Saves a screenshot of the page, {@code width} by {@code height} pixels, to {@code png}. */
  static void screenshot(String url, Path png, int width, int height)
      throws IOException, InterruptedException {
    Files.createDirectories(png.toAbsolutePath().getParent());
    Files.deleteIfExists(png);
    run("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
        "--hide-scrollbars", url);
    if (!Files.isRegularFile(png) || Files.size(png) == 0) {
      throw new AssertionError("Chromium wrote no screenshot of " + url + " to " + png);
    }
  }

  private static String run(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(Arrays.asList(System.getProperty("capsched.chromium",
        "chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--virtual-time-budget=5000", "--user-data-dir="
            + Files.createTempDirectory("capsched-chromium-")));
    cmd.addAll(Arrays.asList(args));
    Path log = Files.createTempFile("capsched-chromium-", ".log");
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = p.getInputStream()) {
      byte[] buf = new byte[8192];
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
      }
    }
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("Chromium did not finish with " + String.join(" ", cmd));
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("Chromium exited " + p.exitValue() + ": " + String.join(" ", cmd)
          + "\n" + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
    }
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }
}
