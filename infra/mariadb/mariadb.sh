# MariaDB from Debian's mariadb-server, run as the project's own server process on 127.0.0.1 with its
# data in .infra/mariadb; or, with MYSQL_EXTERNAL=1, an already running MySQL 8 that is only checked.
# The secure stack's (infra/tls/tls.sh) is a second server process beside it, with its data in
# .infra/mariadb-tls, that takes TLS connections only. Sourced by infra/svc.

MARIADB_DIR="$STATE_DIR/mariadb"
MARIADB_SOCKET="$MARIADB_DIR/mysqld.sock"
MARIADB_PID_FILE="$MARIADB_DIR/mysqld.pid"
MARIADB_TLS_DIR="$STATE_DIR/mariadb-tls"

# The server the steps below act on: plain or tls. Each entry point declares these local (mariadb_on), so
# a step on one server never leaves them set for a later step on the other.
MARIADB_SERVER_VARS=(M_NAME M_LABEL M_DIR M_SOCKET M_PID_FILE M_PORT M_PORT_SETTING M_BUFFER_POOL_MB M_RESET M_TLS_ARGS)
mariadb_use() {
  case $1 in
    plain)
      M_NAME=MariaDB M_LABEL=mysql M_DIR=$MARIADB_DIR M_PORT=$MYSQL_PORT M_PORT_SETTING=MYSQL_PORT
      M_BUFFER_POOL_MB=$MYSQL_BUFFER_POOL_MB M_RESET="infra/svc reset mysql" M_TLS_ARGS=() ;;
    tls)
      M_NAME="TLS MariaDB" M_LABEL=mysql-tls M_DIR=$MARIADB_TLS_DIR M_PORT=$MYSQL_TLS_PORT M_PORT_SETTING=MYSQL_TLS_PORT
      M_BUFFER_POOL_MB=$MYSQL_TLS_BUFFER_POOL_MB M_RESET="infra/svc reset --tls mysql"
      # Its socket (root's provisioning) counts as secure transport; TCP must be TLS.
      M_TLS_ARGS=(--ssl-ca="$TLS_DIR/ca.pem" --ssl-cert="$TLS_DIR/server.pem" --ssl-key="$TLS_DIR/server-key.pem"
        --require-secure-transport=ON) ;;
  esac
  M_SOCKET="$M_DIR/mysqld.sock"
  M_PID_FILE="$M_DIR/mysqld.pid"
}
# Runs STEP (a mariadb_ function's suffix) on one server. Usage: mariadb_on plain|tls STEP
mariadb_on() {
  local "${MARIADB_SERVER_VARS[@]}"
  mariadb_use "$1"
  "mariadb_$2"
}

mariadb_status() {
  [[ $MYSQL_EXTERNAL == 1 ]] && { external_status mysql "$MYSQL_HOST" "$MYSQL_PORT"; return; }
  mariadb_on plain server_status
}
mariadb_start() {
  if [[ $MYSQL_EXTERNAL == 1 ]]; then
    port_open "$MYSQL_HOST" "$MYSQL_PORT" || die "MYSQL_EXTERNAL=1 but nothing answers on $MYSQL_HOST:$MYSQL_PORT; start that server or unset MYSQL_EXTERNAL"
    return 0
  fi
  mariadb_on plain server_start
}
mariadb_stop() {
  [[ $MYSQL_EXTERNAL == 1 ]] && return 0
  mariadb_on plain server_stop
}
mariadb_reset() {
  [[ $MYSQL_EXTERNAL == 1 ]] && die "MYSQL_EXTERNAL=1: the external server's data is not ours to reset"
  mariadb_on plain server_reset
}
mariadb_running_pid() { running_pid "$MARIADB_PID_FILE"; }
# The secure stack's server is always our own process, MYSQL_EXTERNAL or not.
mariadb_tls_status() { mariadb_on tls server_status; }
mariadb_tls_start() { mariadb_on tls server_start; }
mariadb_tls_stop() { mariadb_on tls server_stop; }
mariadb_tls_reset() { mariadb_on tls server_reset; }
mariadb_tls_running_pid() { running_pid "$MARIADB_TLS_DIR/mysqld.pid"; }

mariadb_install() {
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null && return 0
  apt_install_server MYSQL_EXTERNAL "$MARIADB_DIR" mariadb-server mariadb-client
}

mariadb_server_running_pid() { running_pid "$M_PID_FILE"; }

mariadb_server_status() {
  local pid
  if pid=$(mariadb_server_running_pid); then echo "$M_LABEL: running $M_NAME (pid $pid) on $MYSQL_HOST:$M_PORT"; return 0; fi
  echo "$M_LABEL: stopped"; return 1
}

# The MariaDB clients read MYSQL_HOST from the environment and would then ignore the socket;
# our MYSQL_HOST is for the services, so the clients run without it.
mariadb_sql() { env -u MYSQL_HOST mariadb --no-defaults --protocol=socket --socket="$MARIADB_SOCKET" -uroot "$@"; }
mariadb_server_sql() { env -u MYSQL_HOST mariadb --no-defaults --protocol=socket --socket="$M_SOCKET" -uroot "$@"; }

mariadb_server_start() {
  local pid
  if pid=$(mariadb_server_running_pid); then mariadb_wait_ready "$pid"; mariadb_provision; return 0; fi
  if port_open "$MYSQL_HOST" "$M_PORT"; then
    [[ $M_LABEL == mysql ]] && die "port $MYSQL_PORT is in use by $(port_owner "$MYSQL_PORT"); stop it, set MYSQL_PORT to a free port, or set MYSQL_EXTERNAL=1 to use that server"
    die "port $M_PORT is in use by $(port_owner "$M_PORT"); stop it or set $M_PORT_SETTING to a free port"
  fi
  mariadb_install
  mkdir -p "$M_DIR/logs"
  if [[ ! -d "$M_DIR/data/mysql" ]]; then
    log "initialising the $M_NAME data directory"
    mariadb-install-db --no-defaults --user=root --datadir="$M_DIR/data" --skip-test-db \
      --auth-root-authentication-method=socket >"$M_DIR/logs/install-db.log" 2>&1 \
      || die "mariadb-install-db failed (see ${M_DIR#"$ROOT"/}/logs/install-db.log); run '$M_RESET' and re-run"
  fi
  log "starting $M_NAME on $MYSQL_HOST:$M_PORT"
  # innodb_flush_log_at_trx_commit=1 keeps every commit durable, as production does:
  # benchmarks must pay the real fsync cost of the position handler's transactions.
  setsid nohup mariadbd --no-defaults --user=root --datadir="$M_DIR/data" \
    --socket="$M_SOCKET" --pid-file="$M_PID_FILE" --port="$M_PORT" --bind-address="$MYSQL_HOST" \
    --log-error="$M_DIR/logs/error.log" --skip-name-resolve --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --innodb-flush-log-at-trx-commit=1 --innodb-buffer-pool-size="${M_BUFFER_POOL_MB}M" "${M_TLS_ARGS[@]}" \
    >"$M_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$M_PID_FILE"
  SETUP_DID+=("${M_LABEL/mysql/mariadb} started")
  mariadb_wait_ready "$!"
  mariadb_provision
}

mariadb_ready() {
  env -u MYSQL_HOST mariadb-admin --no-defaults --socket="$M_SOCKET" -uroot ping >/dev/null 2>&1 \
    && port_open "$MYSQL_HOST" "$M_PORT"
}

mariadb_wait_ready() {
  wait_ready "$M_NAME" "$1" 60 "$M_DIR/logs/error.log" 'error|not found|no such' mariadb_ready
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
  mariadb_server_sql -e "$sql" || die "creating the $M_NAME user and databases failed; run '$M_RESET' and re-run"
}

mariadb_server_stop() { stop_pid_file "$M_NAME" "$M_PID_FILE" 60; }

mariadb_server_reset() {
  mariadb_server_stop
  rm -rf "$M_DIR/data" "$M_DIR/logs"
  log "$M_NAME data removed"
}
