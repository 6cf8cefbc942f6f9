# central-ledger's own migrations and seeds on its default database (CENTRAL_LEDGER_DB), run by
# `infra/svc start` after MariaDB is up: a deployment's central-ledger API leaves that database so at its
# start, and the position handler started with no settings expects it. Done from central-ledger's npm
# tarball with our knex (migrate.mjs), not from its whole install: every test run calls `infra/svc start`,
# and the install costs minutes of native build. Sourced by infra/svc.

# With --tls, the same on the secure stack's MariaDB (MYSQL_TLS_PORT), over TLS.
central_ledger_schema() {
  local log_file="$STATE_DIR/central-ledger-schema.log" lock_file="$STATE_DIR/central-ledger-schema.lock" where=() on=""
  if [[ ${1:-} == --tls ]]; then
    log_file="$STATE_DIR/central-ledger-schema-tls.log" lock_file="$STATE_DIR/central-ledger-schema-tls.lock"
    where=(--port "$MYSQL_TLS_PORT" --ssl-ca "$TLS_DIR/ca.pem") on=" on the TLS MariaDB"
  fi
  # Our knex and MySQL driver are the position handler's dependencies: without them (no `pnpm install`
  # yet), say so and leave the database as it is; ./run installs them before it starts the services.
  if [[ ! -d $ROOT/packages/position-handler/node_modules/knex ]]; then
    log "database $CENTRAL_LEDGER_DB$on not migrated: the dependencies are not installed (./run installs them, or pnpm install)"
    return 0
  fi
  command -v node >/dev/null || die "migrating database $CENTRAL_LEDGER_DB needs node on the PATH (./run provides it)"
  local lock_fd rc=0
  # Two starts at once (two test runs) would both migrate: knex's own lock makes the second fail.
  exec {lock_fd}>"$lock_file"
  flock "$lock_fd"
  node "$ROOT/infra/central-ledger/migrate.mjs" "${where[@]}" >"$log_file" 2>&1 || rc=$?
  exec {lock_fd}>&-
  (( rc == 0 )) || die "migrating database $CENTRAL_LEDGER_DB$on with central-ledger's migrations failed: $(tail -1 "$log_file" | cut -c1-240) (see ${log_file#"$ROOT"/})"
  grep -q 'is current' "$log_file" || { log "$(tail -1 "$log_file")$on"; SETUP_DID+=("$CENTRAL_LEDGER_DB migrated$on"); }
}
