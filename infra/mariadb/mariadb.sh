# MariaDB from Debian's mariadb-server, run as the project's own server process on 127.0.0.1 with its
# data in .infra/mariadb; or, with MYSQL_EXTERNAL=1, an already running MySQL 8 that is only checked.
# Sourced by infra/svc.

MARIADB_DIR="$STATE_DIR/mariadb"
MARIADB_SOCKET="$MARIADB_DIR/mysqld.sock"
MARIADB_PID_FILE="$MARIADB_DIR/mysqld.pid"

mariadb_install() {
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null && return 0
  [[ $(id -u) == 0 ]] || die "mariadb-server is not installed and installing it needs root; run 'sudo apt-get install mariadb-server' or set MYSQL_EXTERNAL=1 for a running MySQL"
  command -v apt-get >/dev/null || die "mariadb-server is not installed and apt-get is missing; install MariaDB by hand or set MYSQL_EXTERNAL=1"
  log "installing mariadb-server with apt-get"
  # The package's post-install would start the system's own server on port 3306; ours runs from
  # .infra instead, so service starts are refused during the install (the policy-rc.d convention).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; added_policy=1; fi
  mkdir -p "$MARIADB_DIR"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client; } \
    >"$MARIADB_DIR/apt.log" 2>&1
  local rc=$?
  (( added_policy )) && rm -f "$policy"
  (( rc == 0 )) || die "apt-get install mariadb-server failed (see ${MARIADB_DIR#"$ROOT"/}/apt.log); check access to Debian's package mirror and re-run"
  SETUP_DID+=("mariadb-server installed")
}

mariadb_running_pid() {
  local pid
  pid=$(read_pid "$MARIADB_PID_FILE")
  pid_alive "$pid" && echo "$pid"
}

mariadb_status() {
  if [[ $MYSQL_EXTERNAL == 1 ]]; then
    if port_open "$MYSQL_HOST" "$MYSQL_PORT"; then echo "mysql: external server answering on $MYSQL_HOST:$MYSQL_PORT"; return 0; fi
    echo "mysql: external server at $MYSQL_HOST:$MYSQL_PORT does not answer"; return 1
  fi
  local pid
  if pid=$(mariadb_running_pid); then echo "mysql: running MariaDB (pid $pid) on $MYSQL_HOST:$MYSQL_PORT"; return 0; fi
  echo "mysql: stopped"; return 1
}

# The MariaDB clients read MYSQL_HOST from the environment and would then ignore the socket;
# our MYSQL_HOST is for the services, so the clients run without it.
mariadb_sql() { env -u MYSQL_HOST mariadb --no-defaults --protocol=socket --socket="$MARIADB_SOCKET" -uroot "$@"; }

mariadb_start() {
  if [[ $MYSQL_EXTERNAL == 1 ]]; then
    port_open "$MYSQL_HOST" "$MYSQL_PORT" || die "MYSQL_EXTERNAL=1 but nothing answers on $MYSQL_HOST:$MYSQL_PORT; start that server or unset MYSQL_EXTERNAL"
    return 0
  fi
  local pid
  if pid=$(mariadb_running_pid); then mariadb_wait_ready "$pid"; mariadb_provision; return 0; fi
  port_open "$MYSQL_HOST" "$MYSQL_PORT" && die "port $MYSQL_PORT is in use by $(port_owner "$MYSQL_PORT"); stop it, set MYSQL_PORT to a free port, or set MYSQL_EXTERNAL=1 to use that server"
  mariadb_install
  mkdir -p "$MARIADB_DIR/logs"
  if [[ ! -d "$MARIADB_DIR/data/mysql" ]]; then
    log "initialising the MariaDB data directory"
    mariadb-install-db --no-defaults --user=root --datadir="$MARIADB_DIR/data" --skip-test-db \
      --auth-root-authentication-method=socket >"$MARIADB_DIR/logs/install-db.log" 2>&1 \
      || die "mariadb-install-db failed (see ${MARIADB_DIR#"$ROOT"/}/logs/install-db.log); run 'infra/svc reset mysql' and re-run"
  fi
  log "starting MariaDB on $MYSQL_HOST:$MYSQL_PORT"
  # innodb_flush_log_at_trx_commit=1 keeps every commit durable, as production does (issue #2):
  # benchmarks must pay the real fsync cost of the position handler's transactions.
  setsid nohup mariadbd --no-defaults --user=root --datadir="$MARIADB_DIR/data" \
    --socket="$MARIADB_SOCKET" --pid-file="$MARIADB_PID_FILE" --port="$MYSQL_PORT" --bind-address="$MYSQL_HOST" \
    --log-error="$MARIADB_DIR/logs/error.log" --skip-name-resolve --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --innodb-flush-log-at-trx-commit=1 --innodb-buffer-pool-size="${MYSQL_BUFFER_POOL_MB}M" \
    >"$MARIADB_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$MARIADB_PID_FILE"
  SETUP_DID+=("mariadb started")
  mariadb_wait_ready "$!"
  mariadb_provision
}

mariadb_wait_ready() {
  local pid=$1 deadline=$(( $(date +%s) + 60 ))
  while (( $(date +%s) < deadline )); do
    pid_alive "$pid" || die "MariaDB exited while starting: $(grep -h -m1 -E 'ERROR|not found|No such' "$MARIADB_DIR/logs/error.log" "$MARIADB_DIR/logs/stdout.log" 2>/dev/null | head -1 | cut -c1-200) (full log in ${MARIADB_DIR#"$ROOT"/}/logs/error.log)"
    if env -u MYSQL_HOST mariadb-admin --no-defaults --socket="$MARIADB_SOCKET" -uroot ping >/dev/null 2>&1 && port_open "$MYSQL_HOST" "$MYSQL_PORT"; then
      return 0
    fi
    sleep 0.3
  done
  die "MariaDB did not become ready within 60 s (see ${MARIADB_DIR#"$ROOT"/}/logs/error.log)"
}

# The services' user may create and drop databases: each test file owns a fresh one.
mariadb_provision() {
  local sql="" db
  for host in 127.0.0.1 localhost; do
    sql+="CREATE USER IF NOT EXISTS '$MYSQL_USER'@'$host' IDENTIFIED BY '$MYSQL_PASSWORD';"
    sql+="ALTER USER '$MYSQL_USER'@'$host' IDENTIFIED BY '$MYSQL_PASSWORD';"
    sql+="GRANT ALL PRIVILEGES ON *.* TO '$MYSQL_USER'@'$host' WITH GRANT OPTION;"
  done
  for db in $MYSQL_DATABASES; do sql+="CREATE DATABASE IF NOT EXISTS \`$db\`;"; done
  # The originals' default users, each on its own database only (MYSQL_ORIGINAL_USERS, user:password:db).
  local entry user password
  for entry in $MYSQL_ORIGINAL_USERS; do
    IFS=: read -r user password db <<<"$entry"
    [[ -n "$user" && -n "$password" && -n "$db" ]] || die "MYSQL_ORIGINAL_USERS entry '$entry' is not user:password:database"
    sql+="CREATE DATABASE IF NOT EXISTS \`$db\`;"
    for host in 127.0.0.1 localhost; do
      sql+="CREATE USER IF NOT EXISTS '$user'@'$host' IDENTIFIED BY '$password';"
      sql+="ALTER USER '$user'@'$host' IDENTIFIED BY '$password';"
      sql+="GRANT ALL PRIVILEGES ON \`$db\`.* TO '$user'@'$host';"
    done
  done
  mariadb_sql -e "$sql" || die "creating the MariaDB user and databases failed; run 'infra/svc reset mysql' and re-run"
}

mariadb_stop() {
  [[ $MYSQL_EXTERNAL == 1 ]] && return 0
  local pid
  if pid=$(mariadb_running_pid); then
    log "stopping MariaDB (pid $pid)"
    stop_pid "$pid" 60
  fi
  rm -f "$MARIADB_PID_FILE"
}

mariadb_reset() {
  [[ $MYSQL_EXTERNAL == 1 ]] && die "MYSQL_EXTERNAL=1: the external server's data is not ours to reset"
  mariadb_stop
  rm -rf "$MARIADB_DIR/data" "$MARIADB_DIR/logs"
  log "MariaDB data removed"
}
