# MariaDB from Debian's mariadb-server, run as the project's own server process on 127.0.0.1 with its
# data in .infra/mariadb; or, with MYSQL_EXTERNAL=1, an already running MySQL 8 that is only checked.
# Sourced by infra/svc.

MARIADB_DIR="$STATE_DIR/mariadb"
MARIADB_SOCKET="$MARIADB_DIR/mysqld.sock"
MARIADB_PID_FILE="$MARIADB_DIR/mysqld.pid"

mariadb_install() {
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null && return 0
  apt_install_server MYSQL_EXTERNAL "$MARIADB_DIR" mariadb-server mariadb-client
}

mariadb_running_pid() { running_pid "$MARIADB_PID_FILE"; }

mariadb_status() {
  [[ $MYSQL_EXTERNAL == 1 ]] && { external_status mysql "$MYSQL_HOST" "$MYSQL_PORT"; return; }
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
  # innodb_flush_log_at_trx_commit=1 keeps every commit durable, as production does:
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

mariadb_ready() {
  env -u MYSQL_HOST mariadb-admin --no-defaults --socket="$MARIADB_SOCKET" -uroot ping >/dev/null 2>&1 \
    && port_open "$MYSQL_HOST" "$MYSQL_PORT"
}

mariadb_wait_ready() {
  wait_ready MariaDB "$1" 60 "$MARIADB_DIR/logs/error.log" 'error|not found|no such' mariadb_ready
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
  stop_pid_file MariaDB "$MARIADB_PID_FILE" 60
}

mariadb_reset() {
  [[ $MYSQL_EXTERNAL == 1 ]] && die "MYSQL_EXTERNAL=1: the external server's data is not ours to reset"
  mariadb_stop
  rm -rf "$MARIADB_DIR/data" "$MARIADB_DIR/logs"
  log "MariaDB data removed"
}
