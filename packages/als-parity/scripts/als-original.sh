#!/usr/bin/env bash
# Builds and runs Mojaloop's account-lookup-service v17.16.1 from its repository at that tag: the judge the
# parity harness records. Idempotent; the build is cached under ${MOJAFAST_CACHE_DIR:-$HOME/.cache/mojafast}.
#
#   als-original.sh install            fetch the tag, pin what the registry lacks, npm install (once)
#   als-original.sh start              create its database, start `server --admin` (runs its migrations), then `server --api`,
#                                      and with ALS_ORIGINAL_HANDLERS_PORT its timeout handler (`handlers --timeout`)
#   als-original.sh stop               stop the processes started by `start` with the same ports
#   als-original.sh status
#
# Source: account-lookup-service-17.16.1.tar.gz in ORIGINALS_DIR (else shared/originals of a folder above this
# checkout), else the tag from ALS_ORIGINAL_REPO.
# Settings (environment): ALS_ORIGINAL_REPO (a git directory or URL holding the tag; default the GitHub
# repository), ALS_ORIGINAL_API_PORT (41002), ALS_ORIGINAL_ADMIN_PORT (41001), ALS_ORIGINAL_SWITCH_ENDPOINT
# (central-ledger's admin API: the simulator; http://127.0.0.1:41100), ALS_ORIGINAL_DB (als_original_<api port>),
# MYSQL_HOST/MYSQL_PORT/MYSQL_USER/MYSQL_PASSWORD (127.0.0.1:3306 mojafast/mojafast), ALS_ORIGINAL_LOG_LEVEL
# (info), ALS_ORIGINAL_FRESH=1 (drop its database first: an empty oracle registry), ALS_ORIGINAL_HANDLERS_PORT
# (the timeout handler's monitoring port; unset: no handler). Any further ALS_A__B variable is passed on to the original as its own rc override.
set -euo pipefail

VERSION=17.16.1
TAG=v$VERSION
COMMIT=97d195ae4f4b2515eeadc18d2021fad7614ef7be
CACHE_ROOT=${MOJAFAST_CACHE_DIR:-$HOME/.cache/mojafast}
HOME_DIR=$CACHE_ROOT/als-original-$VERSION
APP=$HOME_DIR/app
REPO=${ALS_ORIGINAL_REPO:-https://github.com/mojaloop/account-lookup-service.git}
API_PORT=${ALS_ORIGINAL_API_PORT:-41002}
ADMIN_PORT=${ALS_ORIGINAL_ADMIN_PORT:-41001}
SWITCH=${ALS_ORIGINAL_SWITCH_ENDPOINT:-http://127.0.0.1:41100}
DB=${ALS_ORIGINAL_DB:-als_original_$API_PORT}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-mojafast}
MYSQL_PASSWORD=${MYSQL_PASSWORD:-mojafast}
HANDLERS_PORT=${ALS_ORIGINAL_HANDLERS_PORT:-}
RUN_DIR=$HOME_DIR/run/$API_PORT
# Pinned versions of v17.16.1 that the npm registry does not serve, each replaced by its next patch release.
PINS='{"@mojaloop/event-sdk":"14.8.5","@mojaloop/central-services-health":"15.2.3","@mojaloop/central-services-stream":"11.9.3","@mojaloop/sdk-standard-components":"19.19.1"}'
STAMP="$TAG $COMMIT $PINS no-lock"

die() { echo "als-original: $*" >&2; exit 1; }
command -v node >/dev/null || die "node is not on the PATH (the original wants Node >= 20)"
command -v npm >/dev/null || die "npm is not on the PATH"

# The release tarball (`git archive` of the tag) in the originals' folder: ORIGINALS_DIR, else shared/originals
# beside this checkout or an ancestor of it, where no git host is reachable.
originals_tarball() {
  local name=account-lookup-service-$VERSION.tar.gz up
  if [[ -n ${ORIGINALS_DIR:-} ]]; then [[ -f $ORIGINALS_DIR/$name ]] && echo "$ORIGINALS_DIR/$name"; return; fi
  up=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  while [[ $up != / ]]; do
    up=$(dirname "$up")
    [[ -f $up/shared/originals/$name ]] && { echo "$up/shared/originals/$name"; return 0; }
  done
  return 1
}

# The tag from ALS_ORIGINAL_REPO (a git directory or URL), unpacked into APP.
unpack_tag() {
  local git_dir
  if [[ -d $REPO ]]; then git_dir=$REPO; else
    git_dir=$HOME_DIR/repo.git
    [[ -d $git_dir ]] || git clone --quiet --bare --depth 1 --branch "$TAG" "$REPO" "$git_dir" ||
      die "cannot clone $TAG from $REPO (set ALS_ORIGINAL_REPO to a git directory or URL that has it)"
  fi
  local found
  found=$(git --git-dir="$git_dir" rev-parse "$TAG^{commit}" 2>/dev/null) || die "$REPO has no tag $TAG"
  [[ $found == "$COMMIT" ]] || die "$TAG in $REPO is $found, expected $COMMIT"
  git --git-dir="$git_dir" archive "$TAG" | tar -x -C "$APP" || die "cannot unpack $TAG into $APP"
}

install() {
  if [[ -f $HOME_DIR/installed && "$(cat "$HOME_DIR/installed")" == "$STAMP" ]]; then return 0; fi
  rm -rf "$APP" && mkdir -p "$APP"
  local tarball found
  if tarball=$(originals_tarball); then
    # A `git archive` of the tag: git keeps the commit in its header.
    found=$({ gzip -dc "$tarball" 2>/dev/null || true; } | git get-tar-commit-id 2>/dev/null) ||
      die "$tarball is not a git archive (no commit in its header)"
    [[ $found == "$COMMIT" ]] || die "$tarball is commit $found, expected $TAG's $COMMIT"
    tar -xzf "$tarball" -C "$APP" --strip-components=1 || die "cannot unpack $tarball into $APP"
  else
    unpack_tag
  fi
  (cd "$APP" && node -e '
    const fs = require("node:fs"); const pins = JSON.parse(process.argv[1]);
    const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
    for (const [name, version] of Object.entries(pins)) {
      if (!pkg.dependencies[name]) throw new Error(`no dependency ${name}`);
      pkg.dependencies[name] = version;
    }
    fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2) + "\n");' "$PINS") || die "cannot pin the missing versions"
  # Its package-lock.json names versions the registry does not serve (e.g. @mojaloop/database-lib 11.3.7 for
  # ^11.3.7): resolve package.json's ranges afresh instead.
  rm -f "$APP/package-lock.json"
  echo "als-original: npm install in $APP (a few minutes on first run)" >&2
  (cd "$APP" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >"$HOME_DIR/npm-install.log" 2>&1) ||
    die "npm install failed, see $HOME_DIR/npm-install.log"
  echo "$STAMP" >"$HOME_DIR/installed"
}

mysql_query() {
  node -e '
    const [host, port, user, password, sql] = process.argv.slice(1);
    const mysql = require(require.resolve("mysql2", { paths: [process.argv[6]] }));
    const c = mysql.createConnection({ host, port: Number(port), user, password });
    c.query(sql, (err) => { c.end(); if (err) { console.error(err.message); process.exit(1); } });' \
    "$MYSQL_HOST" "$MYSQL_PORT" "$MYSQL_USER" "$MYSQL_PASSWORD" "$1" "$APP"
}

wait_port() { # port pid name log
  for _ in $(seq 1 240); do
    if ! kill -0 "$2" 2>/dev/null; then die "$3 exited at start, see $4"; fi
    if (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
    sleep 0.25
  done
  die "$3 did not listen on port $1 within 60 s, see $4"
}

start_one() { # name port command...
  local pidfile=$RUN_DIR/$1.pid log=$RUN_DIR/$1.log
  if [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then return 0; fi
  local name=$1 port=$2; shift 2
  (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && die "port $port is taken (set ALS_ORIGINAL_${name^^}_PORT)"
  (
    cd "$APP"
    export ALS_API_PORT=$API_PORT ALS_ADMIN_PORT=$ADMIN_PORT ALS_SWITCH_ENDPOINT=$SWITCH \
      ALS_DATABASE__HOST=$MYSQL_HOST ALS_DATABASE__PORT=$MYSQL_PORT ALS_DATABASE__USER=$MYSQL_USER \
      ALS_DATABASE__PASSWORD=$MYSQL_PASSWORD ALS_DATABASE__DATABASE=$DB \
      ALS_HANDLERS__MONITORING_PORT=${HANDLERS_PORT:-4003} LOG_LEVEL=${ALS_ORIGINAL_LOG_LEVEL:-info}
    # Its file enables the proxy cache as a Redis Cluster; the project's Redis is one node (REDIS_HOST/REDIS_PORT).
    export ALS_PROXY_CACHE__type=${ALS_PROXY_CACHE__type:-redis} \
      ALS_PROXY_CACHE__proxyConfig__host=${ALS_PROXY_CACHE__proxyConfig__host:-${REDIS_HOST:-127.0.0.1}} \
      ALS_PROXY_CACHE__proxyConfig__port=${ALS_PROXY_CACHE__proxyConfig__port:-${REDIS_PORT:-6379}}
    setsid node "$@" >"$log" 2>&1 &
    echo $! >"$pidfile"
  )
  wait_port "$port" "$(cat "$pidfile")" "$name" "$log"
}

start() {
  install
  mkdir -p "$RUN_DIR"
  if [[ ${ALS_ORIGINAL_FRESH:-} == 1 ]]; then
    [[ -f $RUN_DIR/api.pid ]] && kill -0 "$(cat "$RUN_DIR/api.pid")" 2>/dev/null && die "ALS_ORIGINAL_FRESH=1 while it runs: stop it first"
    mysql_query "DROP DATABASE IF EXISTS \`$DB\`" || die "cannot drop database $DB"
  fi
  mysql_query "CREATE DATABASE IF NOT EXISTS \`$DB\`" || die "cannot create database $DB on $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER"
  # The admin server runs the migrations and seeds (RUN_MIGRATIONS): it goes first.
  start_one admin "$ADMIN_PORT" src/index.js server --admin
  start_one api "$API_PORT" src/index.js server --api
  # Its timeout handler runs apart, as its charts run it: answers the inter-scheme lookups that expired.
  [[ -n $HANDLERS_PORT ]] && start_one handlers "$HANDLERS_PORT" src/handlers/index.js handlers --timeout
  echo "{\"api\":\"http://127.0.0.1:$API_PORT\",\"admin\":\"http://127.0.0.1:$ADMIN_PORT\",\"database\":\"$DB\",\"logs\":\"$RUN_DIR\"}"
}

stop() {
  for name in handlers api admin; do
    local pidfile=$RUN_DIR/$name.pid
    [[ -f $pidfile ]] || continue
    local pid; pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
  done
}

status() {
  for name in admin api handlers; do
    local pidfile=$RUN_DIR/$name.pid
    if [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then echo "$name: running (pid $(cat "$pidfile"))"; else echo "$name: stopped"; fi
  done
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: als-original.sh install|start|stop|status" ;;
esac
