# Builds a Mojaloop original (central-ledger, ml-api-adapter) from its release source, once per version into
# the cache, on the Node its .nvmrc names, with its native Kafka client (node-rdkafka) built from source
# against that Node's headers. Sourced by infra/svc and ./run after common.sh.
#
# The source is <originals>/<name>-<version>.tar.gz (a `git archive` of the tag; originals_dir below), else the
# tag cloned from the public repository. Either way its commit is checked.
# The npm registry may lack a version its package.json pins: the pins below take the next patch release
# (recorded in the stamp), and its package-lock.json, which names such versions, is dropped.

# The originals' folder: ORIGINALS_DIR, else shared/originals in this checkout's parent or an ancestor of it
# (a workplace's shared folder beside its clones); nothing when neither exists. Not assigned to ORIGINALS_DIR:
# the charts' lookup (infra/helm/helm.sh) reads a set ORIGINALS_DIR as the user's choice and stops when it
# lacks helm/, where a default that is not there must fall back to the cache or a clone.
originals_dir() {
  local dir=${ORIGINALS_DIR:-} up=$ROOT
  if [[ -n $dir ]]; then [[ -d $dir ]] && (cd "$dir" && pwd); return; fi
  while [[ $up != / ]]; do
    up=$(dirname "$up")
    [[ -d $up/shared/originals ]] && { echo "$up/shared/originals"; return 0; }
  done
  return 1
}

# Prints the commit a `git archive` tarball was made from (git stores it in the tar header).
# git stops reading after the header: gzip's broken pipe is not a failure.
originals_tar_commit() { { gzip -dc "$1" 2>/dev/null || true; } | git get-tar-commit-id 2>/dev/null; }

# Runs a step with its output in LOG; on failure, one line naming the step, the first error line and the log.
# Usage: originals_step LABEL WHAT LOG command...
originals_step() {
  local label=$1 what=$2 log_file=$3; shift 3
  local rc=0 t0 cause
  t0=$(now_ms)
  "$@" >"$log_file" 2>&1 || rc=$?
  if (( rc != 0 )); then
    cause=$(grep -m1 -iE 'npm err|error|not found|fail|fatal' "$log_file" | cut -c1-160 || true)
    die "$label build: $what failed (exit $rc${cause:+: $cause}); see $log_file"
  fi
  log "$label build: $what done in $(( ($(now_ms) - t0) / 1000 ))s"
}

# Unpacks the release source into DEST: from ORIGINALS_DIR's tarball, else a shallow clone of the tag.
# Usage: originals_unpack LABEL NAME VERSION COMMIT REPOSITORY DEST LOG_DIR
originals_unpack() {
  local label=$1 name=$2 version=$3 commit=$4 repository=$5 dest=$6 logs=$7
  local originals tarball found
  originals=$(originals_dir || true)
  tarball="${originals:-${ORIGINALS_DIR:-../shared/originals}}/$name-$version.tar.gz"
  mkdir -p "$dest"
  if [[ -f $tarball ]]; then
    found=$(originals_tar_commit "$tarball") || die "$label build: $tarball is not a git archive (no commit in its header)"
    [[ $found == "$commit" ]] || die "$label build: $tarball is commit $found, expected v$version's $commit"
    tar -xzf "$tarball" -C "$dest" --strip-components=1 || die "$label build: cannot unpack $tarball into $dest"
    echo "$tarball"
    return 0
  fi
  command -v git >/dev/null || die "$label build: no $tarball and git is missing to clone $repository; set ORIGINALS_DIR to a folder holding $name-$version.tar.gz"
  local clone="$dest.git"
  rm -rf "$clone"
  originals_step "$label" "cloning v$version from $repository (no $tarball)" "$logs/clone.log" \
    git clone --quiet --bare --depth 1 --branch "v$version" "$repository" "$clone"
  found=$(git --git-dir="$clone" rev-parse "v$version^{commit}" 2>/dev/null) || die "$label build: $repository has no tag v$version"
  [[ $found == "$commit" ]] || die "$label build: v$version in $repository is $found, expected $commit"
  git --git-dir="$clone" archive "v$version" | tar -x -C "$dest" || die "$label build: cannot unpack v$version into $dest"
  rm -rf "$clone"
  echo "$repository"
}

# Sets the pinned versions the registry lacks (a JSON object name -> version) in package.json; drops its
# devDependencies.
originals_pin() (
  cd "$1" && "$2/node" -e '
    const fs = require("node:fs"); const pins = JSON.parse(process.argv[1]);
    const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
    for (const [name, version] of Object.entries(pins)) {
      if (!pkg.dependencies[name]) throw new Error(`package.json has no dependency ${name} to pin`);
      pkg.dependencies[name] = version;
    }
    // Its devDependencies are not installed (--omit=dev) yet npm resolves them, and their peer ranges conflict.
    delete pkg.devDependencies;
    fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2) + "\n");' "$3"
)

# The C headers of the Node that runs the original: the npm package node@X carries them beside its binary
# (node-<platform>-<arch>/include/node), so node-gyp needs no download from nodejs.org.
originals_node_headers() {
  local dir
  for dir in "$1"/node/node_modules/node/node_modules/node-*/; do
    [[ -f $dir/include/node/node_api.h ]] && { echo "${dir%/}"; return 0; }
  done
  return 1
}

# node-rdkafka (with librdkafka from source) against those headers; a subshell: its cd and PATH stay here.
# Two jobs, as the machine has; librdkafka's own make can race with them: a failed first build is run once
# more serially before giving up.
originals_rdkafka_build() (
  local home=$1 headers=$2 dir
  export PATH="$home/node/node_modules/node/bin:$PATH"
  dir=$(cd "$home/app" && node -p 'require("node:path").dirname(require.resolve("node-rdkafka/package.json"))') || exit 1
  echo "node-rdkafka in $dir"
  cd "$dir"
  local gyp="$home/node-gyp/node_modules/node-gyp/bin/node-gyp.js"
  if ! node "$gyp" rebuild -j 2 --nodedir="$headers"; then
    echo "first build failed; building again with one job"
    node "$gyp" build -j 1 --nodedir="$headers"
  fi
)

originals_build_tools() {
  local label=$1 logs=$2 missing=() tool
  for tool in g++ make python3; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  (( ${#missing[@]} )) || return 0
  apt_install "$logs" "building $label's node-rdkafka" "" "${missing[@]}"
}

# Builds an original into HOME (HOME/app the source with its dependencies, HOME/node its Node) once: a stamp
# (HOME/.installed) names what was built; a lock makes a second concurrent build wait for the first.
# Usage: originals_install LABEL NAME VERSION COMMIT REPOSITORY NODE_VERSION NODE_GYP_VERSION PINS HOME VERIFY_JS
originals_install() {
  local label=$1 name=$2 version=$3 commit=$4 repository=$5 node_version=$6 gyp_version=$7 pins=$8 home=$9 verify=${10}
  local stamp="$name $version $commit node $node_version pins $pins"
  [[ -f $home/.installed && $(head -1 "$home/.installed") == "$stamp" ]] && return 0
  mkdir -p "$CACHE_DIR"
  local lock_fd
  exec {lock_fd}>"$home.lock"
  if ! flock -n "$lock_fd"; then
    log "another $label build into $home is running; waiting for it"
    flock "$lock_fd"
  fi
  if [[ -f $home/.installed && $(head -1 "$home/.installed") == "$stamp" ]]; then exec {lock_fd}>&-; return 0; fi
  command -v npm >/dev/null || die "$label build: npm is missing; install Node.js with npm and re-run"
  local logs="$home.logs" t0 source headers node_bin="$home/node/node_modules/node/bin"
  t0=$(now_ms)
  log "building $label $version on Node $node_version into $home (once; logs in $logs)"
  rm -rf "$home" "$logs"
  mkdir -p "$home/node" "$home/node-gyp" "$logs"
  # A subshell: its die ends only itself, hence the exit here.
  source=$(originals_unpack "$label" "$name" "$version" "$commit" "$repository" "$home/app" "$logs") || exit 1
  originals_step "$label" "Node $node_version and node-gyp $gyp_version from the npm registry" "$logs/node.log" \
    sh -c 'npm install --prefix "$1" --no-save --no-audit --no-fund --loglevel=error "node@$2" &&
      npm install --prefix "$3" --no-save --no-audit --no-fund --loglevel=error "node-gyp@$4"' \
      _ "$home/node" "$node_version" "$home/node-gyp" "$gyp_version"
  [[ -x $node_bin/node ]] || die "$label build: node@$node_version has no bin/node (see $logs/node.log)"
  headers=$(originals_node_headers "$home") || die "$label build: node@$node_version carries no C headers (include/node) for node-gyp; see $home/node"
  originals_pin "$home/app" "$node_bin" "$pins" >"$logs/pin.log" 2>&1 || die "$label build: pinning $pins failed: $(tail -1 "$logs/pin.log" | cut -c1-160)"
  rm -f "$home/app/package-lock.json"
  # Scripts off: the only install script that matters is node-rdkafka's build, run below on our terms.
  originals_step "$label" "npm install of its dependencies (package.json's pins)" "$logs/npm.log" \
    env PATH="$node_bin:$PATH" npm install --prefix "$home/app" --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
  originals_build_tools "$label" "$logs"
  originals_step "$label" "building node-rdkafka (node-gyp, librdkafka from source)" "$logs/node-rdkafka-build.log" \
    originals_rdkafka_build "$home" "$headers"
  originals_step "$label" "loading its native parts" "$logs/verify.log" \
    sh -c 'cd "$1" && "$2/node" -e "$3"' _ "$home/app" "$node_bin" "$verify"
  printf '%s\nfrom %s, built %s in %ss\n' "$stamp" "$source" "$(date -u +%FT%TZ)" "$(( ($(now_ms) - t0) / 1000 ))" >"$home/.installed"
  exec {lock_fd}>&-
  SETUP_DID+=("$label $version built in $(( ($(now_ms) - t0) / 1000 ))s")
}
