#!/usr/bin/env bash
# The main job: a local YARN cluster — one ResourceManager running the Rust capacity
# scheduler and two stock NodeManagers, each its own JVM started from Hadoop's jars —
# with DistributedShell applications submitted to two queues. Prints what ran where,
# then stops the cluster. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$(pwd)
source integration-tests/bin/prerequisites.sh
ensure_prerequisites

echo "== building the scheduler and resolving Hadoop's jars"
run_gradle -q :integration-tests:writeClasspath >/dev/null
cp="$(cat integration-tests/build/cluster-classpath.txt)"
ds_jar=$(tr ':' '\n' <<<"$cp" | grep 'hadoop-yarn-applications-distributedshell' | head -n1)
opens="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.zip=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.security.util=ALL-UNNAMED --add-opens=java.base/sun.security.x509=ALL-UNNAMED --add-exports=java.base/sun.net.dns=ALL-UNNAMED --add-exports=java.base/sun.net.util=ALL-UNNAMED"

work="$top/integration-tests/work/cluster-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$work"
echo "== cluster directory: $work"

# One configuration directory per daemon: the RM's from conf/, each NM's with its own
# ports and directories. Containers get the same classpath (yarn.application.classpath).
app_cp="$work/client-conf,$(tr ':' ',' <<<"$cp")"
property() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
make_conf() { # dir, extra properties...
  local dir=$1; shift
  mkdir -p "$dir"
  cp conf/capacity-scheduler.xml "$dir/"
  {
    sed '/<\/configuration>/d' conf/yarn-site.xml
    property yarn.application.classpath "$app_cp"
    property yarn.nodemanager.admin-env "MALLOC_ARENA_MAX=\$MALLOC_ARENA_MAX,JDK_JAVA_OPTIONS=$opens"
    for p in "$@"; do echo "$p"; done
    echo '</configuration>'
  } > "$dir/yarn-site.xml"
  printf '<configuration>\n%s</configuration>\n' "$(property fs.defaultFS file:///)" > "$dir/core-site.xml"
}
make_conf "$work/rm-conf"
make_conf "$work/client-conf"
for n in 1 2; do
  make_conf "$work/nm$n-conf" \
    "$(property yarn.nodemanager.address "localhost:2804$n")" \
    "$(property yarn.nodemanager.localizer.address "localhost:2805$n")" \
    "$(property yarn.nodemanager.webapp.address "localhost:2806$n")" \
    "$(property yarn.nodemanager.local-dirs "$work/nm$n/local")" \
    "$(property yarn.nodemanager.log-dirs "$work/nm$n/logs")"
done

pids=()
stop_cluster() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_cluster EXIT

start_daemon() { # name, conf dir, main class
  java $opens -Xmx768m -Dhadoop.log.dir="$work/$1" -cp "$2:$cp" "$3" >"$work/$1.log" 2>&1 &
  pids+=($!)
  echo "   started $1 (pid $!), log $work/$1.log"
}
yarn_cli() { java $opens -Xmx256m -cp "$work/client-conf:$cp" "$@" 2>/dev/null; }

echo "== starting the ResourceManager with RustCapacityScheduler and two NodeManagers"
start_daemon resourcemanager "$work/rm-conf" org.apache.hadoop.yarn.server.resourcemanager.ResourceManager
start_daemon nodemanager1 "$work/nm1-conf" org.apache.hadoop.yarn.server.nodemanager.NodeManager
start_daemon nodemanager2 "$work/nm2-conf" org.apache.hadoop.yarn.server.nodemanager.NodeManager

deadline=$((SECONDS + 180))
until [ "$(yarn_cli org.apache.hadoop.yarn.client.cli.NodeCLI -list 2>/dev/null | grep -c RUNNING || true)" -ge 2 ]; do
  if [ $SECONDS -ge $deadline ]; then
    echo "the NodeManagers did not register within 180 s; see the logs above" >&2
    tail -n 30 "$work/resourcemanager.log" >&2
    exit 1
  fi
  sleep 2
done
echo "== both NodeManagers registered"
yarn_cli org.apache.hadoop.yarn.client.cli.NodeCLI -list | grep -v -e WARN -e INFO

submit() { # queue, containers
  yarn_cli org.apache.hadoop.yarn.applications.distributedshell.Client \
    --jar "$ds_jar" --appname "sample-$1" --queue "$1" --num_containers "$2" \
    --shell_command 'echo ran on $NM_HOST:$NM_PORT' \
    --master_memory 512 --master_vcores 1 --container_memory 256 --container_vcores 1 \
    >"$work/client-$1.log" 2>&1
}
web="http://localhost:28088"
queue_table() { java $opens -Xmx128m -cp "$cp" org.capsched.yarn.tools.QueueTable "$web" 2>/dev/null || true; }

echo "== submitting DistributedShell to queues development (4 containers) and marketing (3 containers)"
status=0
submit development 4 & dev=$!
submit marketing 3 & mkt=$!
# The operator's view while they run: the REST queue view (GET /ws/v1/cluster/scheduler),
# a few times.
for i in 1 2 3; do
  sleep 4
  if ! kill -0 $dev 2>/dev/null && ! kill -0 $mkt 2>/dev/null; then break; fi
  echo "== queues now ($web/ws/v1/cluster/scheduler)"
  queue_table
done
wait $dev || status=1
wait $mkt || status=1

echo "== applications"
yarn_cli org.apache.hadoop.yarn.client.cli.ApplicationCLI application -list -appStates ALL | grep -v -e WARN -e INFO
echo "== what ran where (container -> NodeManager, from each NodeManager's container logs)"
for n in 1 2; do
  for out in "$work"/nm$n/logs/application_*/container_*/stdout; do
    [ -f "$out" ] || continue
    c=$(basename "$(dirname "$out")")
    a=$(basename "$(dirname "$(dirname "$out")")")
    printf '  %s  %s  nodemanager%s  %s\n' "$a" "$c" "$n" "$(head -c 80 "$out" | tr -d '\n')"
  done
done | sort
echo "== queues after the run"
for q in development marketing; do yarn_cli org.apache.hadoop.yarn.client.cli.QueueCLI -status "$q" | grep -E 'Queue Name|Queue Path|Capacity|State' ; done
echo "== the scheduler page: $web/cluster/scheduler"
if command -v chromium >/dev/null 2>&1; then
  chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --virtual-time-budget=5000 --user-data-dir="$work/chromium" --window-size=1400,1600 \
    --screenshot="$work/scheduler-page.png" "$web/cluster/scheduler" >/dev/null 2>&1 \
    && echo "   screenshot: $work/scheduler-page.png"
fi
if [ $status -ne 0 ]; then
  echo "a DistributedShell application failed; client logs: $work/client-*.log" >&2
  exit 1
fi
echo "== both applications finished successfully through the Rust capacity scheduler"
