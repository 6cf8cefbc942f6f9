# Redis from Debian's redis-server, run as the project's own process on 127.0.0.1 with its data and logs
# in .infra/redis; or, with REDIS_EXTERNAL=1, an already running Redis that is only checked.
# The ALS's inter-scheme proxy cache and its timeout handler's lock live there (issue 17). Sourced by infra/svc.

REDIS_DIR="$STATE_DIR/redis"
REDIS_PID_FILE="$REDIS_DIR/redis.pid"

redis_install() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  [[ $(id -u) == 0 ]] || die "redis-server is not installed and installing it needs root; run 'sudo apt-get install redis-server' or set REDIS_EXTERNAL=1 for a running Redis"
  command -v apt-get >/dev/null || die "redis-server is not installed and apt-get is missing; install Redis by hand or set REDIS_EXTERNAL=1"
  log "installing redis-server with apt-get"
  # The package's post-install would start the system's own server on port 6379; ours runs from
  # .infra instead, so service starts are refused during the install (the policy-rc.d convention).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; added_policy=1; fi
  mkdir -p "$REDIS_DIR"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools; } \
    >"$REDIS_DIR/apt.log" 2>&1
  local rc=$?
  (( added_policy )) && rm -f "$policy"
  (( rc == 0 )) || die "apt-get install redis-server failed (see ${REDIS_DIR#"$ROOT"/}/apt.log); check access to Debian's package mirror and re-run"
  SETUP_DID+=("redis-server installed")
}

redis_running_pid() {
  local pid
  pid=$(read_pid "$REDIS_PID_FILE")
  pid_alive "$pid" && echo "$pid"
}

redis_ping() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }

redis_status() {
  if [[ $REDIS_EXTERNAL == 1 ]]; then
    if port_open "$REDIS_HOST" "$REDIS_PORT"; then echo "redis: external server answering on $REDIS_HOST:$REDIS_PORT"; return 0; fi
    echo "redis: external server at $REDIS_HOST:$REDIS_PORT does not answer"; return 1
  fi
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
  local pid=$1 deadline=$(( $(date +%s) + 30 ))
  while (( $(date +%s) < deadline )); do
    pid_alive "$pid" || die "Redis exited while starting: $(grep -h -m1 -iE 'error|fatal|denied' "$REDIS_DIR/logs/redis.log" "$REDIS_DIR/logs/stdout.log" 2>/dev/null | head -1 | cut -c1-200) (full log in ${REDIS_DIR#"$ROOT"/}/logs/redis.log)"
    redis_ping && return 0
    sleep 0.2
  done
  die "Redis did not become ready within 30 s (see ${REDIS_DIR#"$ROOT"/}/logs/redis.log)"
}

redis_stop() {
  [[ $REDIS_EXTERNAL == 1 ]] && return 0
  local pid
  if pid=$(redis_running_pid); then
    log "stopping Redis (pid $pid)"
    stop_pid "$pid" 30
  fi
  rm -f "$REDIS_PID_FILE"
}

redis_reset() {
  [[ $REDIS_EXTERNAL == 1 ]] && die "REDIS_EXTERNAL=1: the external server's data is not ours to reset"
  redis_stop
  rm -rf "$REDIS_DIR/data" "$REDIS_DIR/logs"
  log "Redis data removed"
}
