# Shared helpers for the infra scripts: settings, logging, ports, pid files.
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

now_ms() { date +%s%3N; }
