# Apache Kafka, KRaft mode, one node that is broker and controller, on loopback only.
# Sourced by infra/svc. Jars come from Maven Central through Maven; data and logs stay in .infra/kafka.

KAFKA_DIR="$STATE_DIR/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs-$KAFKA_VERSION"
KAFKA_PID_FILE="$KAFKA_DIR/kafka.pid"

kafka_jars() {
  [[ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]] && return 0
  command -v mvn >/dev/null || die "Maven is not installed; it fetches the Kafka jars (apt-get install maven) and re-run"
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central"
  mkdir -p "$KAFKA_DIR"
  rm -rf "$KAFKA_LIBS.tmp"
  mvn -B -q -f "$ROOT/infra/kafka/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIBS.tmp" >"$KAFKA_DIR/maven.log" 2>&1 \
    || die "downloading the Kafka $KAFKA_VERSION jars failed (see ${KAFKA_DIR#"$ROOT"/}/maven.log); check access to Maven Central and re-run"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
  SETUP_DID+=("kafka jars")
}

kafka_write_config() {
  mkdir -p "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  # group.initial.rebalance.delay.ms=0: a consumer group of one joins at once instead of waiting 3 s,
  # which tests and benchmarks would otherwise pay on every start.
  cat >"$KAFKA_DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
log.retention.hours=24
num.network.threads=2
num.io.threads=4
PROPS
}

# The JVM command line shared by the storage tool and the broker.
KAFKA_JAVA=(java -Xms256m -Xmx"${KAFKA_HEAP_MB}m" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j.configuration="file:$ROOT/infra/kafka/log4j.properties" -Dkafka.logs.dir="$KAFKA_DIR/logs"
  -cp "$KAFKA_LIBS/*")
# The admin tools (topic creation) need no broker-sized heap.
KAFKA_TOOL_JAVA=(java -Xmx128m -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
  -Dlog4j.configuration="file:$ROOT/infra/kafka/log4j.properties" -Dkafka.logs.dir="$KAFKA_DIR/logs"
  -cp "$KAFKA_LIBS/*")

# A KRaft cluster id: 16 random bytes, base64url, as Uuid.randomUuid makes; and like it, never one that starts
# with '-' (one in 64 would), which the storage tool's argument parser takes for an option and then stops.
kafka_cluster_id() {
  local id
  while :; do
    id=$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    [[ $id == -* ]] || { echo "$id"; return 0; }
  done
}

kafka_running_pid() { running_pid "$KAFKA_PID_FILE"; }

kafka_status() {
  local pid
  if pid=$(kafka_running_pid); then
    if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then echo "kafka: running (pid $pid) on $KAFKA_HOST:$KAFKA_PORT"; return 0; fi
    echo "kafka: starting (pid $pid), port $KAFKA_PORT not open yet"; return 1
  fi
  echo "kafka: stopped"; return 1
}

kafka_start() {
  local pid t0
  if pid=$(kafka_running_pid); then
    kafka_wait_ready "$pid"
    kafka_provision_topics
    return 0
  fi
  for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    port_open "$KAFKA_HOST" "$port" && die "port $port is in use by $(port_owner "$port"); stop it or set KAFKA_PORT/KAFKA_CONTROLLER_PORT to free ports"
  done
  command -v java >/dev/null || die "Java is not installed; Kafka needs Java 17+ (apt-get install openjdk-17-jre-headless) and re-run"
  kafka_jars
  kafka_write_config
  if [[ ! -f "$KAFKA_DIR/data/meta.properties" ]]; then
    # KRaft storage must be formatted once with a cluster id.
    "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" -c "$KAFKA_DIR/server.properties" >"$KAFKA_DIR/logs/format.log" 2>&1 \
      || die "formatting Kafka storage failed (see ${KAFKA_DIR#"$ROOT"/}/logs/format.log); run 'infra/svc reset kafka' and re-run"
  fi
  log "starting Kafka $KAFKA_VERSION on $KAFKA_HOST:$KAFKA_PORT (heap ${KAFKA_HEAP_MB} MiB)"
  # Readiness is read from server.log, so this start's log must not begin with the last start's lines.
  : >"$KAFKA_DIR/logs/stdout.log"
  : >"$KAFKA_DIR/logs/server.log"
  setsid nohup "${KAFKA_JAVA[@]}" kafka.Kafka "$KAFKA_DIR/server.properties" >>"$KAFKA_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$KAFKA_PID_FILE"
  SETUP_DID+=("kafka started")
  kafka_wait_ready "$!"
  kafka_provision_topics
}

# Creates KAFKA_TOPICS (name:partitions) that are missing. A marker in the data directory names the list
# last created, so a warm start costs no JVM launch; `reset` deletes it with the data.
kafka_provision_topics() {
  local marker="$KAFKA_DIR/data/.mojafast-topics" entry name partitions
  [[ -z "${KAFKA_TOPICS// /}" ]] && return 0
  [[ -f "$marker" && "$(cat "$marker")" == "$KAFKA_TOPICS" ]] && return 0
  for entry in $KAFKA_TOPICS; do
    name=${entry%%:*}; partitions=${entry#*:}
    [[ "$entry" == *:* && "$partitions" =~ ^[1-9][0-9]*$ ]] || die "KAFKA_TOPICS entry '$entry' is not name:partitions"
    "${KAFKA_TOOL_JAVA[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_HOST:$KAFKA_PORT" \
      --create --if-not-exists --topic "$name" --partitions "$partitions" --replication-factor 1 \
      >>"$KAFKA_DIR/logs/topics.log" 2>&1 \
      || die "creating Kafka topic $name failed (see ${KAFKA_DIR#"$ROOT"/}/logs/topics.log)"
  done
  printf '%s' "$KAFKA_TOPICS" >"$marker"
  log "Kafka topics present: $KAFKA_TOPICS"
  SETUP_DID+=("kafka topics")
}

kafka_wait_ready() {
  local pid=$1 deadline=$(( $(date +%s) + 90 ))
  while (( $(date +%s) < deadline )); do
    pid_alive "$pid" || die "Kafka exited while starting: $(grep -m1 -E 'ERROR|Exception' "$KAFKA_DIR/logs/stdout.log" "$KAFKA_DIR/logs/server.log" 2>/dev/null | cut -c1-200) (full log in ${KAFKA_DIR#"$ROOT"/}/logs)"
    if port_open "$KAFKA_HOST" "$KAFKA_PORT" && grep -q 'Kafka Server started' "$KAFKA_DIR/logs/server.log" 2>/dev/null; then
      return 0
    fi
    sleep 0.3
  done
  die "Kafka did not become ready within 90 s (see ${KAFKA_DIR#"$ROOT"/}/logs/server.log)"
}

kafka_stop() { stop_pid_file Kafka "$KAFKA_PID_FILE" 60; }

kafka_reset() {
  kafka_stop
  rm -rf "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  log "Kafka data removed"
}
