# Shared helpers for the infra scripts: settings, logging, ports, pid files, and the install, wait-ready,
# status and stop steps the servers run the same way.
# Sourced, never run. Expects ROOT to be the repository root.

: "${ROOT:?ROOT must be set before sourcing common.sh}"
STATE_DIR="${MOJAFAST_STATE_DIR:-$ROOT/.infra}"
# Downloads and builds that must outlive a fresh clone (central-ledger's install), keyed by version.
CACHE_DIR="${MOJAFAST_CACHE_DIR:-$HOME/.cache/mojafast}"
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

# One line naming the cause and the fix, then a non-zero exit.
# A die inside $(...) ends only that subshell: the mark it leaves (named by the script's PID, which $$ keeps
# in subshells) tells on_error that the one line was said, so the assignment that failed adds no second.
DIED_MARK="${TMPDIR:-/tmp}/mojafast-died.$$"
die() {
  printf '[infra] ERROR: %s\n' "$*" >&2
  : >"$DIED_MARK" 2>/dev/null || true
  exit 1
}

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

# Steps to undo when the script ends, however it ends (die, a failing command under set -e, a signal):
# each entry is a command line, run in order by the EXIT trap.
CLEANUPS=()
add_cleanup() { CLEANUPS+=("$1"); }
drop_cleanup() {
  local kept=() c
  for c in "${CLEANUPS[@]}"; do [[ $c == "$1" ]] || kept+=("$c"); done
  CLEANUPS=("${kept[@]}")
}
run_cleanups() {
  local c
  for c in "${CLEANUPS[@]}"; do eval "$c" || true; done
  CLEANUPS=()
  rm -f "$DIED_MARK"
}
# A step that fails without its own die line (under set -e, or a command nobody checked) still ends in
# one line naming the command and where it ran; the exit code is kept.
on_error() {
  local rc=$1 command=$2 where=${3#"$ROOT"/}
  if [[ -e $DIED_MARK && $command == *'$('* ]]; then rm -f "$DIED_MARK"; exit "$rc"; fi
  printf '[infra] ERROR: %s failed (exit %s) at %s\n' "$command" "$rc" "$where" >&2
  exit "$rc"
}
trap 'run_cleanups' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
set -E
trap 'on_error $? "$BASH_COMMAND" "${BASH_SOURCE[0]:-$0}:$LINENO"' ERR

# The dpkg and apt locks apt-get takes (APT_LOCK_FILES can name others, for tests), and how long to wait
# for another apt or dpkg process to let go of them before giving up (APT_LOCK_WAIT_SECONDS).
APT_LOCK_FILES=${APT_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}
APT_LOCK_WAIT_SECONDS=${APT_LOCK_WAIT_SECONDS:-300}

# The pid holding a lock (fcntl, as dpkg and apt take them, or flock) on FILE, from /proc/locks; fails when none.
lock_holder() {
  [[ -e $1 ]] || return 1
  local inode dev id
  inode=$(stat -L -c %i "$1") || return 1
  dev=$(( 0x$(stat -L -c %D "$1") )) || return 1
  # /proc/locks names the file as MAJOR:MINOR:INODE, the device numbers in hex (glibc's dev_t split).
  id=$(printf '%02x:%02x:%s' $(( ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff) )) $(( (dev & 0xff) | ((dev >> 12) & ~0xff) )) "$inode")
  awk -v id="$id" '$0 !~ /->/ && ($2 == "POSIX" || $2 == "FLOCK" || $2 == "OFDLCK") && $6 == id { print $5; found = 1; exit } END { exit !found }' /proc/locks
}

# Waits, up to APT_LOCK_WAIT_SECONDS and saying so once, until no process holds an apt or dpkg lock.
wait_apt_locks() {
  # In milliseconds: whole seconds from `date +%s` could end the wait up to a second before the time it announces.
  local deadline=$(( $(now_ms) + APT_LOCK_WAIT_SECONDS * 1000 )) file pid said=0
  while :; do
    pid=""
    for file in $APT_LOCK_FILES; do pid=$(lock_holder "$file") && break || pid=""; done
    [[ -z $pid ]] && return 0
    if (( $(now_ms) >= deadline )); then
      die "the apt/dpkg lock $file is still held by pid $pid ($(process_name "$pid")) after ${APT_LOCK_WAIT_SECONDS}s; let that apt run finish (or stop it) and re-run, or raise APT_LOCK_WAIT_SECONDS"
    fi
    if (( ! said )); then
      log "waiting up to ${APT_LOCK_WAIT_SECONDS}s for the apt/dpkg lock $file, held by pid $pid ($(process_name "$pid"))"
      said=1
    fi
    sleep 1
  done
}

process_name() { tr '\0\n' '  ' <"/proc/$1/cmdline" 2>/dev/null | cut -c1-80 || echo "exited"; }

# Installs Debian packages with apt-get, the output in LOG_DIR/apt.log. WHY says what they are for and
# FIX what else the user can do, both for the one-line failure messages.
# Usage: apt_install LOG_DIR WHY FIX PACKAGE...
apt_install() {
  local log_dir=$1 why=$2 fix=$3; shift 3
  local packages="$*"
  [[ $(id -u) == 0 ]] || die "$why needs $packages, and installing them needs root; run 'sudo apt-get install $packages'$fix"
  command -v apt-get >/dev/null || die "$why needs $packages and apt-get is missing; install them by hand$fix"
  mkdir -p "$log_dir"
  local apt_log="$log_dir/apt.log"
  # A package's post-install would start the system's own server on its default port; ours run from
  # .infra instead, so service starts are refused during the install (the policy-rc.d convention). The
  # file is removed however the install ends (the EXIT trap), never left to block the system's services.
  local policy=${APT_POLICY_RC:-/usr/sbin/policy-rc.d} remove_policy=""
  if [[ ! -e $policy ]]; then
    remove_policy="rm -f '$policy'"
    add_cleanup "$remove_policy"
    printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"
  fi
  wait_apt_locks
  log "installing $packages with apt-get (log: ${apt_log#"$ROOT"/})"
  local rc=0
  # The lock can be taken again between the wait above and apt-get: apt-get then waits for it itself.
  { apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_SECONDS" update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_SECONDS" \
        install -y -qq --no-install-recommends "$@"; } >"$apt_log" 2>&1 || rc=$?
  if [[ -n $remove_policy ]]; then eval "$remove_policy"; drop_cleanup "$remove_policy"; fi
  if (( rc != 0 )); then
    local cause
    cause=$(grep -m1 -E '^(E:|W: Failed|Err:)' "$apt_log" | cut -c1-160 || true)
    local fix="check access to Debian's package mirror and re-run"
    [[ $cause == *"Could not get lock"* ]] && fix="another apt or dpkg run took the lock; let it finish and re-run, or raise APT_LOCK_WAIT_SECONDS"
    die "apt-get install $packages failed (exit $rc${cause:+: $cause}; see ${apt_log#"$ROOT"/}); $fix"
  fi
  SETUP_DID+=("$packages installed")
}

# Installs a server's Debian packages (the first is the server), the output in LOG_DIR/apt.log.
# Usage: apt_install_server EXTERNAL_VARIABLE LOG_DIR PACKAGE...
apt_install_server() {
  local external=$1 log_dir=$2; shift 2
  apt_install "$log_dir" "the $1 server" " or set $external=1 to use a server already running" "$@"
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
