#!/usr/bin/env bash
# Installs Mojaloop's Testing Toolkit (npm ml-testing-toolkit) once, from ../toolkit/package-lock.json, into
# ${MOJAFAST_CACHE_DIR:-$HOME/.cache/mojafast}/ttk-<version>. Idempotent: a finished install is stamped with
# the lockfile's hash and not repeated; each failure prints one line naming the cause.
#
#   install.sh install    install if needed; prints the folder
#   install.sh dir        prints the folder (fails when it is not installed)
#
# The toolkit pins @mojaloop/ml-testing-toolkit-shared-lib 14.3.3, which the npm registry does not serve;
# ../toolkit/package.json overrides it with 14.3.0, the newest it has, which the toolkit's API works with.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../toolkit" && pwd)
VERSION=$(node -p 'require(process.argv[1]).dependencies["ml-testing-toolkit"]' "$HERE/package.json" 2>/dev/null) ||
  { echo "ttk: node is not on the PATH (the toolkit wants Node >= 22)" >&2; exit 1; }
CACHE_ROOT=${MOJAFAST_CACHE_DIR:-$HOME/.cache/mojafast}
HOME_DIR=$CACHE_ROOT/ttk-$VERSION
STAMP=$(cat "$HERE/package.json" "$HERE/package-lock.json" | sha256sum | cut -d' ' -f1)

die() { echo "ttk: $*" >&2; exit 1; }
installed() { [[ -f $HOME_DIR/installed && "$(cat "$HOME_DIR/installed")" == "$STAMP" ]]; }

install() {
  if installed; then echo "$HOME_DIR"; return 0; fi
  command -v npm >/dev/null || die "npm is not on the PATH (it comes with Node.js)"
  mkdir -p "$HOME_DIR" || die "cannot create $HOME_DIR (set MOJAFAST_CACHE_DIR to a writable folder)"
  # One install at a time: test runs started together on a fresh machine wait for the first.
  exec 9>"$HOME_DIR.lock"
  flock 9
  if installed; then echo "$HOME_DIR"; return 0; fi
  rm -rf "$HOME_DIR/node_modules" "$HOME_DIR/installed"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$HOME_DIR/" || die "cannot write into $HOME_DIR"
  echo "ttk: npm ci ml-testing-toolkit@$VERSION into $HOME_DIR (a minute or more on the first run)" >&2
  (cd "$HOME_DIR" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >"$HOME_DIR/npm-install.log" 2>&1) ||
    die "npm ci failed (see $HOME_DIR/npm-install.log); check access to the npm registry and re-run"
  [[ -f $HOME_DIR/node_modules/ml-testing-toolkit/src/index.js ]] ||
    die "npm ci left no ml-testing-toolkit/src/index.js in $HOME_DIR/node_modules"
  echo "$STAMP" >"$HOME_DIR/installed"
  echo "$HOME_DIR"
}

case "${1:-}" in
  install) install ;;
  dir) installed || die "not installed: run $0 install"; echo "$HOME_DIR" ;;
  *) die "usage: install.sh install|dir" ;;
esac
