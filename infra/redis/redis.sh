# Redis from Debian's redis-server, run as the project's own process on 127.0.0.1 with its data and logs
# in .infra/redis; or, with REDIS_EXTERNAL=1, an already running Redis that is only checked.
# The ALS's inter-scheme proxy cache and its timeout handler's lock live there. The secure stack's
# (infra/tls/tls.sh) is a second process beside it, data and logs in .infra/redis-tls, with no plaintext
# port at all. Sourced by infra/svc.

REDIS_DIR="$STATE_DIR/redis"
REDIS_PID_FILE="$REDIS_DIR/redis.pid"
REDIS_TLS_DIR="$STATE_DIR/redis-tls"

# The server the steps below act on: plain or tls. Each entry point declares these local (redis_on), so a
# step on one server never leaves them set for a later step on the other.
REDIS_SERVER_VARS=(R_NAME R_LABEL R_DIR R_PID_FILE R_PORT R_PORT_SETTING R_LISTEN_ARGS R_CLI_ARGS)
redis_use() {
  case $1 in
    plain)
      R_NAME=Redis R_LABEL=redis R_DIR=$REDIS_DIR R_PORT=$REDIS_PORT R_PORT_SETTING=REDIS_PORT
      R_LISTEN_ARGS=(--port "$REDIS_PORT") R_CLI_ARGS=(-p "$REDIS_PORT") ;;
    tls)
      R_NAME="TLS Redis" R_LABEL=redis-tls R_DIR=$REDIS_TLS_DIR R_PORT=$REDIS_TLS_PORT R_PORT_SETTING=REDIS_TLS_PORT
      # port 0 closes the plaintext port; tls-auth-clients no: a client needs no certificate of its own.
      R_LISTEN_ARGS=(--port 0 --tls-port "$REDIS_TLS_PORT" --tls-cert-file "$TLS_DIR/server.pem"
        --tls-key-file "$TLS_DIR/server-key.pem" --tls-ca-cert-file "$TLS_DIR/ca.pem" --tls-auth-clients no)
      R_CLI_ARGS=(-p "$REDIS_TLS_PORT" --tls --cacert "$TLS_DIR/ca.pem") ;;
  esac
  R_PID_FILE="$R_DIR/redis.pid"
}
# Runs STEP (a redis_ function's suffix) on one server. Usage: redis_on plain|tls STEP
redis_on() {
  local "${REDIS_SERVER_VARS[@]}"
  redis_use "$1"
  "redis_$2"
}

redis_status() {
  [[ $REDIS_EXTERNAL == 1 ]] && { external_status redis "$REDIS_HOST" "$REDIS_PORT"; return; }
  redis_on plain server_status
}
redis_start() {
  if [[ $REDIS_EXTERNAL == 1 ]]; then
    port_open "$REDIS_HOST" "$REDIS_PORT" || die "REDIS_EXTERNAL=1 but nothing answers on $REDIS_HOST:$REDIS_PORT; start that server or unset REDIS_EXTERNAL"
    return 0
  fi
  redis_on plain server_start
}
redis_stop() {
  [[ $REDIS_EXTERNAL == 1 ]] && return 0
  redis_on plain server_stop
}
redis_reset() {
  [[ $REDIS_EXTERNAL == 1 ]] && die "REDIS_EXTERNAL=1: the external server's data is not ours to reset"
  redis_on plain server_reset
}
redis_running_pid() { running_pid "$REDIS_PID_FILE"; }
# The secure stack's server is always our own process, REDIS_EXTERNAL or not.
redis_tls_status() { redis_on tls server_status; }
redis_tls_start() { redis_on tls server_start; }
redis_tls_stop() { redis_on tls server_stop; }
redis_tls_reset() { redis_on tls server_reset; }
redis_tls_running_pid() { running_pid "$REDIS_TLS_DIR/redis.pid"; }

redis_install() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  apt_install_server REDIS_EXTERNAL "$REDIS_DIR" redis-server redis-tools
}

redis_server_running_pid() { running_pid "$R_PID_FILE"; }

redis_ping() { redis-cli -h "$REDIS_HOST" "${R_CLI_ARGS[@]}" ping 2>/dev/null | grep -q PONG; }

redis_server_status() {
  local pid
  if pid=$(redis_server_running_pid); then echo "$R_LABEL: running $R_NAME (pid $pid) on $REDIS_HOST:$R_PORT"; return 0; fi
  echo "$R_LABEL: stopped"; return 1
}

redis_server_start() {
  local pid
  if pid=$(redis_server_running_pid); then redis_wait_ready "$pid"; return 0; fi
  if port_open "$REDIS_HOST" "$R_PORT"; then
    [[ $R_LABEL == redis ]] && die "port $REDIS_PORT is in use by $(port_owner "$REDIS_PORT"); stop it, set REDIS_PORT to a free port, or set REDIS_EXTERNAL=1 to use that server"
    die "port $R_PORT is in use by $(port_owner "$R_PORT"); stop it or set $R_PORT_SETTING to a free port"
  fi
  redis_install
  mkdir -p "$R_DIR/data" "$R_DIR/logs"
  log "starting $R_NAME on $REDIS_HOST:$R_PORT"
  # No config file: every setting on the command line, so the system's /etc/redis is never read.
  # The proxy cache's entries live seconds (PROXY_CACHE_EXPIRES_IN_SEC), so snapshots are off and
  # keyspace notifications are left to the clients that need them.
  setsid nohup redis-server --bind "$REDIS_HOST" "${R_LISTEN_ARGS[@]}" --protected-mode yes \
    --dir "$R_DIR/data" --save '' --appendonly no --daemonize no \
    --logfile "$R_DIR/logs/redis.log" --maxmemory "${REDIS_MAXMEMORY_MB}mb" \
    >"$R_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$R_PID_FILE"
  SETUP_DID+=("$R_LABEL started")
  redis_wait_ready "$!"
}

redis_wait_ready() {
  wait_ready "$R_NAME" "$1" 30 "$R_DIR/logs/redis.log" 'error|fatal|denied' redis_ping
}

redis_server_stop() { stop_pid_file "$R_NAME" "$R_PID_FILE" 30; }

redis_server_reset() {
  redis_server_stop
  rm -rf "$R_DIR/data" "$R_DIR/logs"
  log "$R_NAME data removed"
}
