/**
 * The CLI's `--help`: every setting of src/config.ts as its flag (test/config.unit.test.ts checks that none is
 * missing), with its default in brackets where it has one.
 */
export const simUsage = `usage: node dist/sim.js [options]   (every option also as env SIM_<NAME>, e.g. SIM_FSPS=10)
  --fsps N                 payee FSPs payeefsp1..N (10)
  --payers M               extra payer FSPs payerfsp1..M (0)
  --als-url URL            where payee callbacks go (http://127.0.0.1:4002)
  --payer-url URL          an external payer instead of the built-in payer simulator
  --port-base P            admin P, oracle P+1, payee P+2, payer P+3; 0 = free ports (0)
  --host H                 address to listen on (127.0.0.1; 0.0.0.0 in a container)
  --public-host H          host name in the URLs handed out, e.g. the Service name (the listen address)
  --not-found-prefix S     oracle IDs with this prefix are not found (404)
  --payee-error-prefix S   payee answers PUT .../error for IDs with this prefix
  --drop-rate R            share of lookups the payee never calls back (0)
  --dead-fsps a,b          FSPs whose endpoints point at a closed port
  --participants-file F    JSON {"name":{"endpointBase":"http://...","currencies":["USD"],"isActive":true}}
  --parties-file F         JSON {"MSISDN/123":[{"fspId":"payeefsp1","currency":"USD"}]} for the oracle
  --{admin,oracle,payee,payer}-latency MS|MIN-MAX
  --{admin,oracle,payee,payer}-error-rate R     share of 500 answers
  --{admin,oracle,payee,payer}-reset-rate R     share of reset connections`;
