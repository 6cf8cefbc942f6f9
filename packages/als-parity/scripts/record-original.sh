#!/usr/bin/env bash
# Records account-lookup-service v17.16.1's answers into fixtures/original-17.16.1.json: starts it on an empty
# database with the parity run's settings (the same rc overrides the CI test gives ours: src/env.ts), runs the
# corpus with the recording simulators, stops it. The original takes milliseconds per step, and more on a loaded
# machine: a case ends after 1.5 s without a request for it. Needs the original's source (ALS_ORIGINAL_REPO, see
# als-original.sh) and the project's MariaDB; `pnpm build` first. ISO 20022 mode: `ALS_API_TYPE=iso20022
# record-original.sh --api-type iso20022` (the original's own setting, then the ISO corpus into
# fixtures/original-17.16.1-iso20022.json). The inter-scheme corpus: `record-original.sh --inter-scheme` (ISO
# 20022 mode, the proxy cache on in a database of the project's Redis of its own, the timeout handler started
# beside the API, with src/corpus-inter-scheme.ts's settings).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ALS_ORIGINAL_API_PORT=${ALS_ORIGINAL_API_PORT:-41002} ALS_ORIGINAL_ADMIN_PORT=${ALS_ORIGINAL_ADMIN_PORT:-41001}
SIMS_PORT=${PARITY_SIMS_PORT:-41100}
export ALS_ORIGINAL_SWITCH_ENDPOINT=http://127.0.0.1:$SIMS_PORT ALS_ORIGINAL_FRESH=1
inter_scheme=
for arg in "$@"; do [[ $arg == --inter-scheme ]] && inter_scheme=1; done
if [[ -n $inter_scheme ]]; then
  # As src/env.ts and src/redis-db.ts give ours: one Redis, a database number from the counter the test files
  # share, emptied before and after; then the corpus's own settings.
  redis_host=${REDIS_HOST:-127.0.0.1} redis_port=${REDIS_PORT:-6379}
  rcli() { redis-cli -h "$redis_host" -p "$redis_port" "$@"; }
  redis_db=$(( $(rcli INCR mojafast:test-db-counter) % 15 + 1 ))
  rcli -n "$redis_db" FLUSHDB >/dev/null
  export ALS_PROXY_CACHE__enabled=true ALS_PROXY_CACHE__type=redis ALS_PROXY_CACHE__proxyConfig__host=$redis_host \
    ALS_PROXY_CACHE__proxyConfig__port=$redis_port ALS_PROXY_CACHE__proxyConfig__db=$redis_db
  eval "$(node --input-type=module -e "
    const { suites } = await import('$here/../dist/suites.js');
    for (const [k, v] of Object.entries(suites['inter-scheme'].env)) console.log('export ' + k + '=\'' + v + '\'');")"
  export ALS_ORIGINAL_HANDLERS_PORT=${ALS_ORIGINAL_HANDLERS_PORT:-$((ALS_ORIGINAL_API_PORT + 1))}
else
  # As in src/env.ts: the proxy cache off (inter-scheme discovery is in its own corpus).
  export ALS_PROXY_CACHE__enabled=false
fi
"$here/als-original.sh" stop
"$here/als-original.sh" start >/dev/null
trap '"$here/als-original.sh" stop; [[ -n $inter_scheme ]] && rcli -n "$redis_db" FLUSHDB >/dev/null' EXIT
node "$here/../dist/cli.js" record --api "http://127.0.0.1:$ALS_ORIGINAL_API_PORT" \
  --admin "http://127.0.0.1:$ALS_ORIGINAL_ADMIN_PORT" --sims-port "$SIMS_PORT" --quiet-ms 1500 "$@"
