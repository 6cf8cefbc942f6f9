# helm, and Mojaloop's own charts for the services we replace, as a user deploys them.
# Sourced, never run, after infra/originals/originals.sh (originals_dir). Expects ROOT, STATE_DIR and CACHE_DIR
# (infra/lib/common.sh).
#   ensure_helm        helm $HELM_VERSION on PATH: the machine's when it is that version, else built once with
#                      `go install` from the Go module proxy into $CACHE_DIR/tools (no release download site
#                      is needed)
#   charts_dir         the folder holding account-lookup-service/ and centralledger/ of mojaloop/helm:
#                      $ORIGINALS_DIR/helm, else shared/originals/helm of an ancestor folder, else the copy
#                      of either kept in $CACHE_DIR, else a clone of $HELM_CHARTS_REPO at $HELM_CHARTS_REF

HELM_VERSION=${HELM_VERSION:-3.22.0}
HELM_CHARTS_REPO=${HELM_CHARTS_REPO:-https://github.com/mojaloop/helm}
# The release of mojaloop/helm a user's clone takes when no ORIGINALS_DIR is given.
HELM_CHARTS_REF=${HELM_CHARTS_REF:-v17.1.0}

ensure_helm() {
  local have bin="$CACHE_DIR/tools/helm-$HELM_VERSION/helm"
  have=$(helm version --template '{{.Version}}' 2>/dev/null || true)
  if [[ $have == "v$HELM_VERSION" ]]; then return 0; fi
  if [[ ! -x $bin ]]; then
    # Go's own installer puts it in /usr/local/go, which a non-login shell's PATH (CI's) may lack.
    command -v go >/dev/null || { [[ -x /usr/local/go/bin/go ]] && export PATH="$PATH:/usr/local/go/bin"; }
    command -v go >/dev/null || die "helm $HELM_VERSION is needed to render Mojaloop's charts and go is missing to build it; install Go (or helm $HELM_VERSION) and re-run"
    mkdir -p "$(dirname "$bin")"
    log "building helm $HELM_VERSION with go install from the Go module proxy into ${bin%/helm} (once, about 4 min)"
    GOBIN="$(dirname "$bin")" GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION" >"$STATE_DIR/helm-install.log" 2>&1 \
      || die "go install helm.sh/helm/v3/cmd/helm@v$HELM_VERSION failed (see ${STATE_DIR#"$ROOT"/}/helm-install.log); check access to the Go module proxy (GOPROXY)"
    SETUP_DID+=("helm $HELM_VERSION")
  fi
  export PATH="$(dirname "$bin"):$PATH"
}

# The charts found are kept in the cache, so a later clone elsewhere on this machine (CI's) finds them too.
charts_dir() {
  local originals clone cached="$CACHE_DIR/originals/helm"
  originals=$(originals_dir || true)
  if [[ -n $originals && -d $originals/helm ]]; then
    if ! diff -rq "$originals/helm" "$cached" >/dev/null 2>&1; then
      mkdir -p "$CACHE_DIR/originals" && rm -rf "$cached.part" && cp -R "$originals/helm" "$cached.part" \
        && rm -rf "$cached" && mv "$cached.part" "$cached"
    fi
    echo "$originals/helm"
    return 0
  fi
  [[ -n ${ORIGINALS_DIR:-} ]] && die "ORIGINALS_DIR=$ORIGINALS_DIR has no helm/ folder; point it at a folder holding helm/ (mojaloop/helm's charts) or unset it to clone $HELM_CHARTS_REPO"
  if [[ -d $cached ]]; then echo "$cached"; return 0; fi
  clone="$CACHE_DIR/mojaloop-helm-$HELM_CHARTS_REF"
  if [[ ! -d $clone/.git ]]; then
    log "no ORIGINALS_DIR: cloning $HELM_CHARTS_REPO at $HELM_CHARTS_REF into $clone"
    mkdir -p "$CACHE_DIR"
    git clone --quiet --depth 1 --branch "$HELM_CHARTS_REF" "$HELM_CHARTS_REPO" "$clone.part" >"$STATE_DIR/helm-charts-clone.log" 2>&1 \
      || { rm -rf "$clone.part"; die "cloning $HELM_CHARTS_REPO at $HELM_CHARTS_REF failed (see ${STATE_DIR#"$ROOT"/}/helm-charts-clone.log); set ORIGINALS_DIR to a folder holding helm/"; }
    mv "$clone.part" "$clone"
  fi
  echo "$clone"
}
