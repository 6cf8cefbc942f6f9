# Redis from Debian's redis-server, run as the project's own process on 127.0.0.1 with its data and logs
# in .infra/redis; or, with REDIS_EXTERNAL=1, an already running Redis that is only checked.
# The ALS's inter-scheme proxy cache and its timeout handler's lock live there. Sourced by infra/svc.

REDIS_DIR="$STATE_DIR/redis"
REDIS_PID_FILE="$REDIS_DIR/redis.pid"

redis_install() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  apt_install_server REDIS_EXTERNAL "$REDIS_DIR" redis-server redis-tools
}

redis_running_pid() { running_pid "$REDIS_PID_FILE"; }

redis_ping() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }

redis_status() {
  [[ $REDIS_EXTERNAL == 1 ]] && { external_status redis "$REDIS_HOST" "$REDIS_PORT"; return; }
  local pid
  if pid=$(redis_running_pid); then echo "redis: running Redis (pid $pid) on $REDIS_HOST:$REDIS_PORT"; return 0; fi
  echo "redis: stopped"; return 1
}

redis_start() {
  if [[ $REDIS_EXTERNAL == 1 ]]; then
    port_open "$REDIS_HOST" "$REDIS_PORT" || die "REDIS_EXTERNAL=1 but nothing answers on $REDIS_HOST:$REDIS_PORT; start that server or unset REDIS_EXTERNAL"
    return 0
  fi
  local pid
  if pid=$(redis_running_pid); then redis_wait_ready "$pid"; return 0; fi
  port_open "$REDIS_HOST" "$REDIS_PORT" && die "port $REDIS_PORT is in use by $(port_owner "$REDIS_PORT"); stop it, set REDIS_PORT to a free port, or set REDIS_EXTERNAL=1 to use that server"
  redis_install
  mkdir -p "$REDIS_DIR/data" "$REDIS_DIR/logs"
  log "starting Redis on $REDIS_HOST:$REDIS_PORT"
  # No config file: every setting on the command line, so the system's /etc/redis is never read.
  # The proxy cache's entries live seconds (PROXY_CACHE_EXPIRES_IN_SEC), so snapshots are off and
  # keyspace notifications are left to the clients that need them.
  setsid nohup redis-server --bind "$REDIS_HOST" --port "$REDIS_PORT" --protected-mode yes \
    --dir "$REDIS_DIR/data" --save '' --appendonly no --daemonize no \
    --logfile "$REDIS_DIR/logs/redis.log" --maxmemory "${REDIS_MAXMEMORY_MB}mb" \
    >"$REDIS_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$REDIS_PID_FILE"
  SETUP_DID+=("redis started")
  redis_wait_ready "$!"
}

redis_wait_ready() {
  wait_ready Redis "$1" 30 "$REDIS_DIR/logs/redis.log" 'error|fatal|denied' redis_ping
}

redis_stop() {
  [[ $REDIS_EXTERNAL == 1 ]] && return 0
  stop_pid_file Redis "$REDIS_PID_FILE" 30
}

redis_reset() {
  [[ $REDIS_EXTERNAL == 1 ]] && die "REDIS_EXTERNAL=1: the external server's data is not ours to reset"
  redis_stop
  rm -rf "$REDIS_DIR/data" "$REDIS_DIR/logs"
  log "Redis data removed"
}
