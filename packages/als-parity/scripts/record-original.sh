#!/usr/bin/env bash
# Records account-lookup-service v17.16.1's answers into fixtures/original-17.16.1.json: starts it on an empty
# database with the parity run's settings (the same rc overrides the CI test gives ours: src/env.ts), runs the
# corpus with the recording simulators, stops it. The original takes milliseconds per step, and more on a loaded
# machine: a case ends after 1.5 s without a request for it. Needs the original's source (ALS_ORIGINAL_REPO, see
# als-original.sh) and the project's MariaDB; `pnpm build` first. ISO 20022 mode: `ALS_API_TYPE=iso20022
# record-original.sh --api-type iso20022` (the original's own setting, then the ISO corpus into
# fixtures/original-17.16.1-iso20022.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ALS_ORIGINAL_API_PORT=${ALS_ORIGINAL_API_PORT:-41002} ALS_ORIGINAL_ADMIN_PORT=${ALS_ORIGINAL_ADMIN_PORT:-41001}
SIMS_PORT=${PARITY_SIMS_PORT:-41100}
export ALS_ORIGINAL_SWITCH_ENDPOINT=http://127.0.0.1:$SIMS_PORT ALS_ORIGINAL_FRESH=1
# As in src/env.ts: the proxy cache off (inter-scheme discovery is not in the corpus).
export ALS_PROXY_CACHE__enabled=false
"$here/als-original.sh" stop
"$here/als-original.sh" start >/dev/null
trap '"$here/als-original.sh" stop' EXIT
node "$here/../dist/cli.js" record --api "http://127.0.0.1:$ALS_ORIGINAL_API_PORT" \
  --admin "http://127.0.0.1:$ALS_ORIGINAL_ADMIN_PORT" --sims-port "$SIMS_PORT" --quiet-ms 1500 "$@"
