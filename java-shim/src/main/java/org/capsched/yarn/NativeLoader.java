package org.capsched.yarn;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the Rust scheduler core. First {@code System.loadLibrary("capsched")} (for operators
 * who install the library on {@code java.library.path}), then the copy packed in this jar
 * under {@code native/<os>-<arch>/}, extracted to a temporary file.
 */
final class NativeLoader {
  static final String LIBRARY = "capsched";

  private static volatile boolean loaded;

  private NativeLoader() {
  }

  /** Loads the library once per class loader; later calls return at once. */
  static synchronized void load() {
    if (loaded) {
      return;
    }
    try {
      System.loadLibrary(LIBRARY);
    } catch (UnsatisfiedLinkError notOnLibraryPath) {
      loadFromJar();
    }
    loaded = true;
  }

  /** The resource path of the library for this platform, e.g. native/linux-x86_64/libcapsched.so. */
  static String resourcePath() {
    return "native/" + platform() + "/" + System.mapLibraryName(LIBRARY);
  }

  private static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String osName = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "darwin" : os;
    String archName = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
        : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
    return osName + "-" + archName;
  }

  private static void loadFromJar() {
    String resource = resourcePath();
    try (InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError("The Rust capacity scheduler library is neither on "
            + "java.library.path (" + System.getProperty("java.library.path") + ") nor in the "
            + "jar at " + resource + "; this build does not support " + platform());
      }
      File tmp = File.createTempFile("libcapsched", ".so");
      tmp.deleteOnExit();
      Files.copy(in, tmp.toPath(), StandardCopyOption.REPLACE_EXISTING);
      System.load(tmp.getAbsolutePath());
    } catch (IOException e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError(
          "Could not extract " + resource + " to a temporary file: " + e.getMessage());
      error.initCause(e);
      throw error;
    }
  }
}
