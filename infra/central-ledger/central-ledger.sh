# central-ledger (the original switch: its admin API and its transfer handlers) built from its release source,
# run on the local Kafka and MariaDB, so our position handler can be tried inside the real switch and beside
# the original's own. Sourced by infra/svc and ./run, after common.sh, the kafka and mariadb scripts and
# infra/originals/originals.sh.
#
# Built once per version into a cache that outlives the checkout (MOJAFAST_CACHE_DIR): its source (the
# newest release is not on npm), its dependencies, scripts off, then its native node-rdkafka built from source
# against the headers of the Node it runs on (CENTRAL_LEDGER_NODE_VERSION, its .nvmrc, from the npm registry).
# Its files are never edited: our settings are an rc override (config.cjs) it reads through CLEDG_config.

CL_NODE_MAJOR=${CENTRAL_LEDGER_NODE_VERSION%%.*}
CL_HOME="$CACHE_DIR/central-ledger-$CENTRAL_LEDGER_VERSION-node$CL_NODE_MAJOR"
CL_APP="$CL_HOME/app"
CL_NODE_BIN="$CL_HOME/node/node_modules/node/bin"
CL_RUN_DIR=${CENTRAL_LEDGER_RUN_DIR:-$STATE_DIR/central-ledger}
CL_CONFIG="$CL_RUN_DIR/config.json"
# The processes, as a deployment runs them: the API (admin API, and the migrations at its start), the
# handlers in one process, and the original batch position handler when asked for.
CL_PROCESSES=(api handlers position)

cl_port() {
  case $1 in
    api) echo "$CENTRAL_LEDGER_PORT" ;;
    handlers) echo "$CENTRAL_LEDGER_HANDLERS_PORT" ;;
    position) echo "$CENTRAL_LEDGER_POSITION_PORT" ;;
  esac
}

cl_command() {
  case $1 in
    api) echo "src/api/index.js" ;;
    handlers) echo "src/handlers/index.js handler --prepare --fulfil --timeout --get --admin" ;;
    position) echo "src/handlers/index.js handler --positionbatch" ;;
  esac
}

cl_pid_file() { echo "$CL_RUN_DIR/$1.pid"; }
cl_log() { echo "$CL_RUN_DIR/logs/$1.log"; }

# The topics its handlers consume and produce (topic-<functionality>-<action> of its GENERAL_TOPIC_TEMPLATE),
# as name:partitions; topic-bulk-processing takes the position handlers' answers to the bulk actions. The position topics keep KAFKA_TOPICS' partition counts.
cl_topics() {
  local p=$CENTRAL_LEDGER_TOPIC_PREFIX entry topics="" batch=$CENTRAL_LEDGER_POSITION_TOPIC
  for entry in $KAFKA_TOPICS; do [[ ${entry%%:*} == "$batch" ]] && batch=$entry; done
  [[ $batch == *:* ]] || batch="$batch:1"
  for entry in topic-transfer-prepare:1 topic-transfer-fulfil:1 topic-transfer-get:1 topic-admin-transfer:1 \
    topic-transfer-position:1 topic-notification-event:1 topic-bulk-processing:1 "$batch"; do
    topics+=" $p$entry"
  done
  echo "$topics"
}

# Answers GET /health with 200 on loopback; no curl needed. A subshell: the connection's descriptor and a
# refused connection's message stay in it.
cl_health_ok() (
  local line
  exec 3<>"/dev/tcp/$CENTRAL_LEDGER_HOST/$1" || exit 1
  printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$CENTRAL_LEDGER_HOST" >&3
  read -r -t 5 line <&3 || exit 1
  [[ $line == "HTTP/1."?" 200"* ]]
) 2>/dev/null

# Builds central-ledger from its release source into CL_HOME once (infra/originals/originals.sh).
central_ledger_install() {
  originals_install central-ledger central-ledger "$CENTRAL_LEDGER_VERSION" "$CENTRAL_LEDGER_COMMIT" \
    https://github.com/mojaloop/central-ledger.git "$CENTRAL_LEDGER_NODE_VERSION" "$CENTRAL_LEDGER_NODE_GYP_VERSION" \
    "$CENTRAL_LEDGER_PINS" "$CL_HOME" \
    "require('node-rdkafka'); require('knex'); require('mysql2'); console.log('node-rdkafka', require('node-rdkafka').librdkafkaVersion)"
}

# Its database, created when missing (the API migrates and seeds it at start).
cl_database() {
  local db=$CENTRAL_LEDGER_DB
  [[ $db =~ ^[A-Za-z0-9_]+$ ]] || die "CENTRAL_LEDGER_DB '$db' is not a plain database name"
  if [[ $MYSQL_EXTERNAL != 1 ]]; then
    mariadb_sql -e "CREATE DATABASE IF NOT EXISTS \`$db\`" || die "creating database $db failed (MariaDB's log: ${MARIADB_DIR#"$ROOT"/}/logs/error.log)"
  fi
}

cl_running_pid() { running_pid "$(cl_pid_file "$1")"; }

cl_start_process() {
  local name=$1 port pid log_file
  port=$(cl_port "$name")
  log_file=$(cl_log "$name")
  if pid=$(cl_running_pid "$name"); then
    cl_wait_ready "$name" "$pid"
    return 0
  fi
  port_open "$CENTRAL_LEDGER_HOST" "$port" && die "central-ledger $name: port $port is in use by $(port_owner "$port"); stop it or set $(cl_port_variable "$name") to a free port"
  log "starting central-ledger $name on $CENTRAL_LEDGER_HOST:$port (log: ${log_file#"$ROOT"/})"
  : >"$log_file"
  # shellcheck disable=SC2046 # the command is words on purpose
  (cd "$CL_APP" && exec env PATH="$CL_NODE_BIN:$PATH" CLEDG_config="$CL_CONFIG" CLEDG_PORT="$port" \
    CENTRAL_LEDGER_HOST="$CENTRAL_LEDGER_HOST" LOG_LEVEL="$CENTRAL_LEDGER_LOG_LEVEL" \
    EVENT_SDK_SIDECAR_DISABLED=true EVENT_SDK_LOG_FILTER="log:error" \
    setsid nohup node --require "$ROOT/infra/central-ledger/loopback.cjs" $(cl_command "$name") \
    >>"$log_file" 2>&1 </dev/null) &
  echo $! >"$(cl_pid_file "$name")"
  SETUP_DID+=("central-ledger $name started")
  cl_wait_ready "$name" "$!"
}

cl_port_variable() {
  case $1 in api) echo CENTRAL_LEDGER_PORT ;; handlers) echo CENTRAL_LEDGER_HANDLERS_PORT ;; position) echo CENTRAL_LEDGER_POSITION_PORT ;; esac
}

cl_wait_ready() {
  local name=$1 pid=$2 port
  port=$(cl_port "$name")
  # The API's first start runs central-ledger's migrations and seeds: minutes on a slow disk.
  wait_ready "central-ledger $name" "$pid" "$CENTRAL_LEDGER_START_SECONDS" "$(cl_log "$name")" \
    'error|cannot|fail' cl_health_ok "$port"
}

central_ledger_status() {
  local name pid rc=0 port
  for name in "${CL_PROCESSES[@]}"; do
    port=$(cl_port "$name")
    if pid=$(cl_running_pid "$name"); then
      echo "central-ledger $name: running (pid $pid) on $CENTRAL_LEDGER_HOST:$port, log ${CL_RUN_DIR#"$ROOT"/}/logs/$name.log"
    else
      echo "central-ledger $name: stopped"
      [[ $name == position ]] || rc=1
    fi
  done
  [[ -f $CL_HOME/.installed ]] && echo "central-ledger: $(tail -1 "$CL_HOME/.installed") ($CL_HOME)"
  return $rc
}

# What every start needs before a process starts: the services under it, the install, the config override,
# the database and the topics.
cl_prepare() {
  kafka_start
  mariadb_start
  central_ledger_install
  mkdir -p "$CL_RUN_DIR/logs"
  cl_database
  PATH="$CL_NODE_BIN:$PATH" node "$ROOT/infra/central-ledger/config.cjs" "$CL_APP" "$CL_CONFIG" \
    >"$CL_RUN_DIR/logs/config.log" 2>&1 || die "writing central-ledger's config override failed: $(tail -1 "$CL_RUN_DIR/logs/config.log" | cut -c1-200)"
  local topics
  topics=$(cl_topics)
  # shellcheck disable=SC2086 # one argument per topic
  PATH="$CL_NODE_BIN:$PATH" node "$ROOT/infra/central-ledger/topics.cjs" "$CL_APP" "$KAFKA_HOST:$KAFKA_PORT" $topics \
    >"$CL_RUN_DIR/logs/topics.log" 2>&1 || die "creating central-ledger's Kafka topics failed: $(tail -1 "$CL_RUN_DIR/logs/topics.log" | cut -c1-200) (see ${CL_RUN_DIR#"$ROOT"/}/logs/topics.log)"
}

# Usage: central_ledger_start [--with-original-position]
central_ledger_start() {
  local with_position=0 arg
  for arg in "$@"; do
    case $arg in
      --with-original-position) with_position=1 ;;
      *) die "infra/svc start central-ledger: unknown option $arg (only --with-original-position)" ;;
    esac
  done
  cl_prepare
  cl_start_process api
  cl_start_process handlers
  if (( with_position )); then cl_start_process position; fi
}

# The original batch position handler alone (service central-ledger-position), e.g. to take over the position
# topic from ours on a running switch; the same settings as the switch it joins.
central_ledger_position_start() {
  cl_prepare
  cl_start_process position
}

central_ledger_position_stop() { stop_pid_file "central-ledger position" "$(cl_pid_file position)" 30; }

central_ledger_position_status() {
  local pid
  if pid=$(cl_running_pid position); then
    echo "central-ledger position: running (pid $pid) on $CENTRAL_LEDGER_HOST:$CENTRAL_LEDGER_POSITION_PORT"
    return 0
  fi
  echo "central-ledger position: stopped"; return 1
}

central_ledger_position_reset() { central_ledger_position_stop; }

central_ledger_stop() {
  local name
  for name in position handlers api; do stop_pid_file "central-ledger $name" "$(cl_pid_file "$name")" 30; done
}

# Stops it and drops its database (the next start migrates and seeds a new one); the install stays cached.
central_ledger_reset() {
  central_ledger_stop
  if [[ $MYSQL_EXTERNAL != 1 ]] && mariadb_running_pid >/dev/null; then
    mariadb_sql -e "DROP DATABASE IF EXISTS \`$CENTRAL_LEDGER_DB\`" || die "dropping database $CENTRAL_LEDGER_DB failed"
  fi
  rm -rf "$CL_RUN_DIR"
  log "central-ledger stopped, database $CENTRAL_LEDGER_DB dropped (the install in $CL_HOME is kept)"
}
