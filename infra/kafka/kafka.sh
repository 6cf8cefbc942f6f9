# Apache Kafka, KRaft mode, one node that is broker and controller, on loopback only: the plain broker
# (PLAINTEXT on KAFKA_PORT), and the secure stack's (infra/tls/tls.sh), a second one beside it with only TLS
# listeners. Sourced by infra/svc. Jars come from Maven Central through Maven, once, for both; data and
# logs stay in .infra/kafka and .infra/kafka-tls.

KAFKA_DIR="$STATE_DIR/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs-$KAFKA_VERSION"
KAFKA_TLS_DIR="$STATE_DIR/kafka-tls"

# The broker the steps below act on: plain or tls. Each entry point declares these local (kafka_on), so a
# step on one broker never leaves them set for a later step on the other.
KAFKA_SERVER_VARS=(K_NAME K_LABEL K_LISTENING K_DIR K_PID_FILE K_PORT K_PORTS K_PORT_SETTINGS K_HEAP_MB K_RESET K_ADMIN K_JAVA K_TOOL_JAVA)
kafka_use() {
  case $1 in
    plain)
      K_NAME=Kafka K_LABEL=kafka K_DIR=$KAFKA_DIR K_PORT=$KAFKA_PORT K_HEAP_MB=$KAFKA_HEAP_MB
      K_PORTS="$KAFKA_PORT $KAFKA_CONTROLLER_PORT" K_PORT_SETTINGS=KAFKA_PORT/KAFKA_CONTROLLER_PORT
      K_RESET="infra/svc reset kafka" K_LISTENING="$KAFKA_HOST:$KAFKA_PORT"
      K_ADMIN=(--bootstrap-server "$KAFKA_HOST:$KAFKA_PORT") ;;
    tls)
      K_NAME="TLS Kafka" K_LABEL=kafka-tls K_DIR=$KAFKA_TLS_DIR K_PORT=$KAFKA_TLS_PORT K_HEAP_MB=$KAFKA_TLS_HEAP_MB
      K_PORTS="$KAFKA_TLS_PORT $KAFKA_SASL_PORT $KAFKA_MTLS_PORT $KAFKA_TLS_CONTROLLER_PORT"
      K_PORT_SETTINGS=KAFKA_TLS_PORT/KAFKA_SASL_PORT/KAFKA_MTLS_PORT/KAFKA_TLS_CONTROLLER_PORT
      K_RESET="infra/svc reset --tls kafka"
      K_LISTENING="$KAFKA_HOST:$KAFKA_TLS_PORT (SSL), $KAFKA_SASL_PORT (SASL_SSL), $KAFKA_MTLS_PORT (SSL, client certificate)"
      K_ADMIN=(--bootstrap-server "$KAFKA_HOST:$KAFKA_TLS_PORT" --command-config "$KAFKA_TLS_DIR/client-ssl.properties") ;;
  esac
  K_PID_FILE="$K_DIR/kafka.pid"
  # The JVM command line of the storage tool and the broker; the broker's heap starts at most at 256 MiB.
  K_JAVA=(java -Xms"$(( K_HEAP_MB < 256 ? K_HEAP_MB : 256 ))m" -Xmx"${K_HEAP_MB}m" -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -Djava.awt.headless=true -Dlog4j.configuration="file:$ROOT/infra/kafka/log4j.properties" -Dkafka.logs.dir="$K_DIR/logs"
    -cp "$KAFKA_LIBS/*")
  # The admin tools (topic creation) need no broker-sized heap.
  K_TOOL_JAVA=(java -Xmx128m -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
    -Dlog4j.configuration="file:$ROOT/infra/kafka/log4j.properties" -Dkafka.logs.dir="$K_DIR/logs"
    -cp "$KAFKA_LIBS/*")
}
# Runs STEP (a kafka_ function's suffix) on one broker. Usage: kafka_on plain|tls STEP
kafka_on() {
  local "${KAFKA_SERVER_VARS[@]}"
  kafka_use "$1"
  "kafka_$2"
}

kafka_status() { kafka_on plain server_status; }
kafka_start() { kafka_on plain server_start; }
kafka_stop() { kafka_on plain server_stop; }
kafka_reset() { kafka_on plain server_reset; }
kafka_running_pid() { kafka_on plain server_running_pid; }
kafka_tls_status() { kafka_on tls server_status; }
kafka_tls_start() { kafka_on tls server_start; }
kafka_tls_stop() { kafka_on tls server_stop; }
kafka_tls_reset() { kafka_on tls server_reset; }
kafka_tls_running_pid() { kafka_on tls server_running_pid; }

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
  mkdir -p "$K_DIR/data" "$K_DIR/logs"
  if [[ $K_LABEL == kafka ]]; then
    kafka_common_config "$KAFKA_CONTROLLER_PORT" <<PROPS >"$K_DIR/server.properties"
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
PROPS
  else
    kafka_tls_config
  fi
}

# The secure stack's broker: no plaintext listener at all, the controller's included. SSL asks for no client
# certificate (encrypt-only, as Mojaloop's secure deployments); MTLS (SSL too) requires one signed by the CA;
# SASL_SSL authenticates KAFKA_SASL_USER with PLAIN (the password in this file) or SCRAM (the credentials
# kafka_provision_users stores in the cluster's metadata). The broker talks to itself over SSL.
kafka_tls_config() {
  local store="$TLS_DIR/kafka" password=$TLS_STORE_PASSWORD
  local ssl="ssl.truststore.type=PKCS12
ssl.truststore.location=${store}.truststore.p12
ssl.truststore.password=$password"
  kafka_common_config "$KAFKA_TLS_CONTROLLER_PORT" <<PROPS >"$K_DIR/server.properties"
listeners=SSL://$KAFKA_HOST:$KAFKA_TLS_PORT,SASL_SSL://$KAFKA_HOST:$KAFKA_SASL_PORT,MTLS://$KAFKA_HOST:$KAFKA_MTLS_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_TLS_CONTROLLER_PORT
advertised.listeners=SSL://$KAFKA_HOST:$KAFKA_TLS_PORT,SASL_SSL://$KAFKA_HOST:$KAFKA_SASL_PORT,MTLS://$KAFKA_HOST:$KAFKA_MTLS_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SSL
listener.security.protocol.map=CONTROLLER:SSL,SSL:SSL,SASL_SSL:SASL_SSL,MTLS:SSL
ssl.keystore.type=PKCS12
ssl.keystore.location=${store}.keystore.p12
ssl.keystore.password=$password
ssl.key.password=$password
$ssl
ssl.client.auth=none
listener.name.mtls.ssl.client.auth=required
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$KAFKA_SASL_USER="$KAFKA_SASL_PASSWORD";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
PROPS
  # The admin tools' connection: SSL, trusting the CA.
  printf 'security.protocol=SSL\n%s\n' "$ssl" >"$K_DIR/client-ssl.properties"
}

# What both brokers share: the node's roles and storage, and single-node replication. The listeners come
# on standard input. Usage: kafka_common_config CONTROLLER_PORT <listeners
kafka_common_config() {
  # group.initial.rebalance.delay.ms=0: a consumer group of one joins at once instead of waiting 3 s,
  # which tests and benchmarks would otherwise pay on every start.
  cat <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$1
$(cat)
log.dirs=$K_DIR/data
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

# A KRaft cluster id: 16 random bytes, base64url, as Uuid.randomUuid makes; and like it, never one that starts
# with '-' (one in 64 would), which the storage tool's argument parser takes for an option and then stops.
kafka_cluster_id() {
  local id
  while :; do
    id=$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    [[ $id == -* ]] || { echo "$id"; return 0; }
  done
}

# KRaft storage must be formatted once with a cluster id, before the first start.
kafka_server_format() {
  [[ -f "$K_DIR/data/meta.properties" ]] && return 0
  "${K_JAVA[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" -c "$K_DIR/server.properties" >"$K_DIR/logs/format.log" 2>&1 \
    || die "formatting $K_NAME's storage failed (see ${K_DIR#"$ROOT"/}/logs/format.log); run '$K_RESET' and re-run"
}

kafka_server_running_pid() { running_pid "$K_PID_FILE"; }

kafka_server_status() {
  local pid
  if pid=$(kafka_server_running_pid); then
    if port_open "$KAFKA_HOST" "$K_PORT"; then echo "$K_LABEL: running (pid $pid) on $K_LISTENING"; return 0; fi
    echo "$K_LABEL: starting (pid $pid), port $K_PORT not open yet"; return 1
  fi
  echo "$K_LABEL: stopped"; return 1
}

kafka_server_start() {
  local pid port
  if pid=$(kafka_server_running_pid); then
    kafka_wait_ready "$pid"
    kafka_provision
    return 0
  fi
  for port in $K_PORTS; do
    port_open "$KAFKA_HOST" "$port" && die "port $port is in use by $(port_owner "$port"); stop it or set $K_PORT_SETTINGS to free ports"
  done
  command -v java >/dev/null || die "Java is not installed; Kafka needs Java 17+ (apt-get install openjdk-17-jre-headless) and re-run"
  kafka_jars
  kafka_write_config
  kafka_server_format
  log "starting $K_NAME $KAFKA_VERSION on $K_LISTENING (heap ${K_HEAP_MB} MiB)"
  # Readiness is read from server.log, so this start's log must not begin with the last start's lines.
  : >"$K_DIR/logs/stdout.log"
  : >"$K_DIR/logs/server.log"
  setsid nohup "${K_JAVA[@]}" kafka.Kafka "$K_DIR/server.properties" >>"$K_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$K_PID_FILE"
  SETUP_DID+=("$K_LABEL started")
  kafka_wait_ready "$!"
  kafka_provision
}

kafka_provision() {
  [[ $K_LABEL == kafka-tls ]] && kafka_provision_users
  kafka_provision_topics
}

# Stores KAFKA_SASL_USER's SCRAM-SHA-256 and SCRAM-SHA-512 credentials in the TLS broker's metadata (PLAIN's
# is in server.properties). A marker names the user and a digest of the password last stored, so a warm
# start costs no JVM launch and a changed password is stored again.
kafka_provision_users() {
  local marker="$K_DIR/data/.mojafast-users" made mechanism
  made="$KAFKA_SASL_USER $(printf '%s' "$KAFKA_SASL_PASSWORD" | sha256sum | cut -c1-16)"
  [[ -f "$marker" && "$(cat "$marker")" == "$made" ]] && return 0
  # One mechanism per call: the broker refuses two credentials of one user in one request.
  for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
    "${K_TOOL_JAVA[@]}" kafka.admin.ConfigCommand "${K_ADMIN[@]}" --alter --entity-type users --entity-name "$KAFKA_SASL_USER" \
      --add-config "$mechanism=[password=$KAFKA_SASL_PASSWORD]" >>"$K_DIR/logs/users.log" 2>&1 \
      || die "storing the $mechanism credential of $KAFKA_SASL_USER on $K_NAME failed (see ${K_DIR#"$ROOT"/}/logs/users.log)"
  done
  printf '%s' "$made" >"$marker"
  log "$K_NAME: SASL user $KAFKA_SASL_USER (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)"
  SETUP_DID+=("$K_LABEL users")
}

# Creates KAFKA_TOPICS (name:partitions) that are missing. A marker in the data directory names the list
# last created, so a warm start costs no JVM launch; `reset` deletes it with the data.
kafka_provision_topics() {
  local marker="$K_DIR/data/.mojafast-topics" entry name partitions
  [[ -z "${KAFKA_TOPICS// /}" ]] && return 0
  [[ -f "$marker" && "$(cat "$marker")" == "$KAFKA_TOPICS" ]] && return 0
  for entry in $KAFKA_TOPICS; do
    name=${entry%%:*}; partitions=${entry#*:}
    [[ "$entry" == *:* && "$partitions" =~ ^[1-9][0-9]*$ ]] || die "KAFKA_TOPICS entry '$entry' is not name:partitions"
    "${K_TOOL_JAVA[@]}" org.apache.kafka.tools.TopicCommand "${K_ADMIN[@]}" \
      --create --if-not-exists --topic "$name" --partitions "$partitions" --replication-factor 1 \
      >>"$K_DIR/logs/topics.log" 2>&1 \
      || die "creating Kafka topic $name on $K_NAME failed (see ${K_DIR#"$ROOT"/}/logs/topics.log)"
  done
  printf '%s' "$KAFKA_TOPICS" >"$marker"
  log "$K_NAME topics present: $KAFKA_TOPICS"
  SETUP_DID+=("$K_LABEL topics")
}

kafka_wait_ready() {
  local pid=$1 deadline=$(( $(date +%s) + 90 ))
  while (( $(date +%s) < deadline )); do
    pid_alive "$pid" || die "$K_NAME exited while starting: $(grep -m1 -E 'ERROR|Exception' "$K_DIR/logs/stdout.log" "$K_DIR/logs/server.log" 2>/dev/null | cut -c1-200) (full log in ${K_DIR#"$ROOT"/}/logs)"
    if port_open "$KAFKA_HOST" "$K_PORT" && grep -q 'Kafka Server started' "$K_DIR/logs/server.log" 2>/dev/null; then
      return 0
    fi
    sleep 0.3
  done
  die "$K_NAME did not become ready within 90 s (see ${K_DIR#"$ROOT"/}/logs/server.log)"
}

kafka_server_stop() { stop_pid_file "$K_NAME" "$K_PID_FILE" 60; }

kafka_server_reset() {
  kafka_server_stop
  rm -rf "$K_DIR/data" "$K_DIR/logs"
  log "$K_NAME data removed"
}
