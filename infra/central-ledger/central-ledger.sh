# central-ledger (the original switch: its admin API and its transfer handlers) from npm, run on the local
# Kafka and MariaDB, so our position handler can be tried inside the real switch and beside the original's own.
# Sourced by infra/svc and ./run, after common.sh and the kafka and mariadb scripts.
#
# Installed once per version into a cache that outlives the checkout (MOJAFAST_CACHE_DIR): the npm package
# with its dependencies, scripts off, then its native node-rdkafka built from source against the headers of
# the Node it runs on (CENTRAL_LEDGER_NODE_VERSION, fetched from the npm registry as ./run fetches Node 24).
# Its files are never edited: our settings are an rc override (config.cjs) it reads through CLEDG_config.

CL_NODE_MAJOR=${CENTRAL_LEDGER_NODE_VERSION%%.*}
CL_HOME="$CACHE_DIR/central-ledger-$CENTRAL_LEDGER_VERSION-node$CL_NODE_MAJOR"
CL_INSTALL_LOGS="$CL_HOME.logs"
CL_APP="$CL_HOME/node_modules/@mojaloop/central-ledger"
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
# as name:partitions. The position topics keep KAFKA_TOPICS' partition counts.
cl_topics() {
  local p=$CENTRAL_LEDGER_TOPIC_PREFIX entry topics="" batch=$CENTRAL_LEDGER_POSITION_TOPIC
  for entry in $KAFKA_TOPICS; do [[ ${entry%%:*} == "$batch" ]] && batch=$entry; done
  [[ $batch == *:* ]] || batch="$batch:1"
  for entry in topic-transfer-prepare:1 topic-transfer-fulfil:1 topic-transfer-get:1 topic-admin-transfer:1 \
    topic-transfer-position:1 topic-notification-event:1 "$batch"; do
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

# Runs a step of the install with its output in LOG; on failure, one line naming the step and the log.
# Usage: cl_step "what" LOG command...
cl_step() {
  local what=$1 log_file=$2; shift 2
  local rc=0 t0
  t0=$(now_ms)
  "$@" >"$log_file" 2>&1 || rc=$?
  if (( rc != 0 )); then
    local cause
    cause=$(grep -m1 -iE 'npm err|error|not found|fail' "$log_file" | cut -c1-160 || true)
    die "central-ledger install: $what failed (exit $rc${cause:+: $cause}); see $log_file"
  fi
  log "central-ledger install: $what done in $(( ($(now_ms) - t0) / 1000 ))s"
}

cl_build_tools() {
  local missing=() tool
  for tool in g++ make python3; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  (( ${#missing[@]} )) || return 0
  local packages=()
  for tool in "${missing[@]}"; do
    case $tool in g++) packages+=(g++) ;; make) packages+=(make) ;; python3) packages+=(python3) ;; esac
  done
  apt_install "$CL_INSTALL_LOGS" "building central-ledger's node-rdkafka" "" "${packages[@]}"
}

# The C headers of the Node that runs central-ledger: the npm package node@X carries them beside its binary
# (node-<platform>-<arch>/include/node), so node-gyp needs no download from nodejs.org.
cl_node_headers() {
  local dir
  for dir in "$CL_HOME"/node/node_modules/node/node_modules/node-*/; do
    [[ -f $dir/include/node/node_api.h ]] && { echo "${dir%/}"; return 0; }
  done
  return 1
}

# Runs in a subshell (the body's parentheses): its cd and PATH stay there.
cl_rdkafka_build() (
  local headers=$1
  export PATH="$CL_NODE_BIN:$PATH"
  cd "$CL_HOME/node_modules/node-rdkafka"
  # Two jobs, as the machine has; librdkafka's own make can race with them: a failed first build is run
  # once more serially before giving up.
  if ! node "$CL_HOME/node_modules/node-gyp/bin/node-gyp.js" rebuild -j 2 --nodedir="$headers"; then
    echo "first build failed; building again with one job"
    node "$CL_HOME/node_modules/node-gyp/bin/node-gyp.js" build -j 1 --nodedir="$headers"
  fi
)

cl_verify() (
  cd "$CL_APP"
  "$CL_NODE_BIN/node" -e "require('node-rdkafka'); require('knex'); require('mysql'); console.log('node-rdkafka', require('node-rdkafka').librdkafkaVersion)"
)

# Installs central-ledger into CL_HOME once (idempotent, and safe when two starts race: a lock file).
central_ledger_install() {
  [[ -f $CL_HOME/.installed ]] && return 0
  mkdir -p "$CACHE_DIR"
  local lock_fd
  exec {lock_fd}>"$CL_HOME.lock"
  if ! flock -n "$lock_fd"; then
    log "another central-ledger install into $CL_HOME is running; waiting for it"
    flock "$lock_fd"
  fi
  if [[ -f $CL_HOME/.installed ]]; then exec {lock_fd}>&-; return 0; fi
  command -v npm >/dev/null || die "central-ledger install: npm is missing; install Node.js with npm and re-run"
  local t0
  t0=$(now_ms)
  log "installing central-ledger $CENTRAL_LEDGER_VERSION on Node $CENTRAL_LEDGER_NODE_VERSION into $CL_HOME (once; logs in $CL_INSTALL_LOGS)"
  rm -rf "$CL_HOME" "$CL_INSTALL_LOGS"
  mkdir -p "$CL_HOME/node" "$CL_INSTALL_LOGS"
  cl_step "Node $CENTRAL_LEDGER_NODE_VERSION from the npm registry" "$CL_INSTALL_LOGS/node.log" \
    npm install --prefix "$CL_HOME/node" --no-save --no-audit --no-fund --loglevel=error "node@$CENTRAL_LEDGER_NODE_VERSION"
  [[ -x $CL_NODE_BIN/node ]] || die "central-ledger install: node@$CENTRAL_LEDGER_NODE_VERSION has no bin/node (see $CL_INSTALL_LOGS/node.log)"
  local headers
  headers=$(cl_node_headers) || die "central-ledger install: node@$CENTRAL_LEDGER_NODE_VERSION carries no C headers (include/node) for node-gyp; see $CL_HOME/node"
  printf '{ "private": true }\n' >"$CL_HOME/package.json"
  # Scripts off: the only install script that matters is node-rdkafka's build, run below on our terms.
  cl_step "npm install @mojaloop/central-ledger@$CENTRAL_LEDGER_VERSION" "$CL_INSTALL_LOGS/npm.log" \
    env PATH="$CL_NODE_BIN:$PATH" npm install --prefix "$CL_HOME" --ignore-scripts --no-audit --no-fund \
      --loglevel=error "@mojaloop/central-ledger@$CENTRAL_LEDGER_VERSION" "node-gyp@$CENTRAL_LEDGER_NODE_GYP_VERSION"
  cl_build_tools
  cl_step "building node-rdkafka (node-gyp, librdkafka from source)" "$CL_INSTALL_LOGS/node-rdkafka-build.log" \
    cl_rdkafka_build "$headers"
  cl_step "loading node-rdkafka, knex and mysql" "$CL_INSTALL_LOGS/verify.log" cl_verify
  printf 'central-ledger %s node %s installed %s in %ss\n' "$CENTRAL_LEDGER_VERSION" "$CENTRAL_LEDGER_NODE_VERSION" \
    "$(date -u +%FT%TZ)" "$(( ($(now_ms) - t0) / 1000 ))" >"$CL_HOME/.installed"
  exec {lock_fd}>&-
  SETUP_DID+=("central-ledger $CENTRAL_LEDGER_VERSION installed in $(( ($(now_ms) - t0) / 1000 ))s")
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
  [[ -f $CL_HOME/.installed ]] && echo "central-ledger: $(cat "$CL_HOME/.installed") ($CL_HOME)"
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
