# Sourced by the run and test commands: installs what a fresh machine lacks.
# Rust (cargo) and a JDK 17 are expected on the machine; Gradle and Chromium (the browser
# the web UI tests and the run command's screenshot use) come from Debian's packages,
# Hadoop's jars from Maven Central (Gradle fetches them), crates from crates.io.

ensure_prerequisites() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is not installed: install Rust (https://rustup.rs) and re-run" >&2
    return 1
  fi
  if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    echo "installing a JDK from Debian's packages" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
  fi
  if ! command -v gradle >/dev/null 2>&1; then
    echo "installing Gradle from Debian's packages" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gradle >/dev/null
  fi
  if ! command -v chromium >/dev/null 2>&1; then
    echo "installing Chromium from Debian's packages" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  fi
}

# Gradle without a daemon, quiet about the JDK banner Debian's launcher prints.
run_gradle() {
  gradle --no-daemon --console=plain "$@" 2> >(grep -v -e '^openjdk version' -e '^OpenJDK ' >&2)
}
