# Shared helpers for the infra scripts: settings, logging, ports, pid files, and the install, wait-ready,
# status and stop steps the servers run the same way.
# Sourced, never run. Expects ROOT to be the repository root.

: "${ROOT:?ROOT must be set before sourcing common.sh}"
STATE_DIR="${MOJAFAST_STATE_DIR:-$ROOT/.infra}"
# Made here, not by whichever step first needs it: with Node 24 and pnpm already on PATH no toolchain step
# runs, and the dependency install writes its log into this folder first.
mkdir -p "$STATE_DIR"
# Debian installs mariadbd and mariadb-install-db in /usr/sbin, which a non-login PATH (CI's) may lack.
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin:/sbin" ;; esac

# Load infra/services.env without overriding what the caller exported.
while IFS='=' read -r key value; do
  [[ -z "$key" || "$key" == \#* ]] && continue
  if [[ -z "${!key+set}" ]]; then export "$key=$value"; fi
done < "$ROOT/infra/services.env"

log() { printf '[infra] %s\n' "$*" >&2; }

# One line naming the cause and the fix, then a non-zero exit (issue #2).
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

port_owner() {
  local pid
  pid=$(ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  if [[ -n "$pid" ]]; then printf '%s (%s)' "$pid" "$(tr '\0\n' '  ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)"; else printf 'an unknown process'; fi
}

pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

read_pid() { [[ -f "$1" ]] && cat "$1" || true; }

# Waits until a process exits, escalating to SIGKILL after the grace period.
stop_pid() {
  local pid=$1 grace=${2:-30} i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do pid_alive "$pid" || return 0; sleep 0.1; done
  log "pid $pid did not stop within ${grace}s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

# The pid a pid file names, printed when that process still runs; fails when none does.
running_pid() {
  local pid
  pid=$(read_pid "$1")
  pid_alive "$pid" && echo "$pid"
}

# Stops the process a pid file names, if it runs, and removes the file. Usage: stop_pid_file NAME PID_FILE GRACE
stop_pid_file() {
  local pid
  if pid=$(running_pid "$2"); then
    log "stopping $1 (pid $pid)"
    stop_pid "$pid" "$3"
  fi
  rm -f "$2"
}

# What `status` says of a server the scripts only check (MYSQL_EXTERNAL=1, REDIS_EXTERNAL=1).
# Usage: external_status SERVICE HOST PORT
external_status() {
  if port_open "$2" "$3"; then echo "$1: external server answering on $2:$3"; return 0; fi
  echo "$1: external server at $2:$3 does not answer"; return 1
}

# Installs a server's Debian packages (the first is the server), the output in LOG_DIR/apt.log.
# Usage: apt_install_server EXTERNAL_VARIABLE LOG_DIR PACKAGE...
apt_install_server() {
  local external=$1 log_dir=$2; shift 2
  local package=$1
  [[ $(id -u) == 0 ]] || die "$package is not installed and installing it needs root; run 'sudo apt-get install $package' or set $external=1 to use a server already running"
  command -v apt-get >/dev/null || die "$package is not installed and apt-get is missing; install it by hand or set $external=1 to use a server already running"
  log "installing $package with apt-get"
  # The package's post-install would start the system's own server on its default port; ours runs from
  # .infra instead, so service starts are refused during the install (the policy-rc.d convention).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; added_policy=1; fi
  mkdir -p "$log_dir"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } \
    >"$log_dir/apt.log" 2>&1
  local rc=$?
  (( added_policy )) && rm -f "$policy"
  (( rc == 0 )) || die "apt-get install $package failed (see ${log_dir#"$ROOT"/}/apt.log); check access to Debian's package mirror and re-run"
  SETUP_DID+=("$package installed")
}

# Waits until the command READY... succeeds, for at most SECONDS. If PID exits first, dies with the first
# line matching PATTERN (case-insensitive) of LOG or of the stdout.log beside it, the server's own words.
# Usage: wait_ready NAME PID SECONDS LOG PATTERN READY...
wait_ready() {
  local name=$1 pid=$2 seconds=$3 log_file=$4 pattern=$5; shift 5
  local deadline=$(( $(date +%s) + seconds ))
  while (( $(date +%s) < deadline )); do
    pid_alive "$pid" || die "$name exited while starting: $(grep -h -m1 -iE "$pattern" "$log_file" "${log_file%/*}/stdout.log" 2>/dev/null | head -1 | cut -c1-200) (full log in ${log_file#"$ROOT"/})"
    "$@" && return 0
    sleep 0.2
  done
  die "$name did not become ready within $seconds s (see ${log_file#"$ROOT"/})"
}

now_ms() { date +%s%3N; }
