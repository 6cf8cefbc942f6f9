# Node 24 and pnpm for the project, without touching the system's node (docs/decisions/0001-toolchain-and-services.md).
# Sourced by ./run; puts the chosen tools first on PATH. Idempotent: a machine that already has
# Node >= 24 (the services use AsyncDisposableStack) and pnpm is left as it is.

NODE_PIN=24.21.0
PNPM_PIN=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$ROOT/package.json")
TOOLS_DIR="$STATE_DIR/tools"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if command -v node >/dev/null && (( $(node_major) >= 24 )); then return 0; fi
  local prefix="$TOOLS_DIR/node-$NODE_PIN"
  if [[ ! -x "$prefix/node_modules/node/bin/node" ]]; then
    command -v npm >/dev/null || die "neither Node >= 24 nor npm is installed; install Node.js (any version with npm) and re-run"
    log "installing Node $NODE_PIN from the npm registry into ${prefix#"$ROOT"/}"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_PIN" >"$prefix.log" 2>&1 \
      || die "downloading node@$NODE_PIN failed (see $prefix.log); check access to the npm registry and re-run"
    SETUP_DID+=("node $NODE_PIN")
  fi
  export PATH="$prefix/node_modules/node/bin:$PATH"
}

ensure_pnpm() {
  if command -v pnpm >/dev/null; then return 0; fi
  local prefix="$TOOLS_DIR/pnpm-$PNPM_PIN"
  if [[ ! -x "$prefix/node_modules/.bin/pnpm" ]]; then
    log "installing pnpm $PNPM_PIN into ${prefix#"$ROOT"/}"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "pnpm@$PNPM_PIN" >"$prefix.log" 2>&1 \
      || die "downloading pnpm@$PNPM_PIN failed (see $prefix.log); check access to the npm registry and re-run"
    SETUP_DID+=("pnpm $PNPM_PIN")
  fi
  export PATH="$prefix/node_modules/.bin:$PATH"
}
