import { parseArgs } from 'node:util';
import { startOracleSim } from '@mojafast/sim';
import { startPayeeFsp } from './payee.js';

/**
 * bench:switch's simulators in a process of their own, so their CPU is reported apart from the generator's:
 * the payee FSP and the oracle the ALSs ask (every MSISDN resolves to the payee). Prints one ready line with
 * both URLs; on SIGTERM prints the payee's counts and exits.
 */
const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'payeefsp1' },
    'als-url': { type: 'string' },
    'front-url': { type: 'string' },
    seed: { type: 'string' },
  },
});
if (!values['als-url'] || !values['front-url'] || !values.seed) {
  process.stderr.write('usage: fsps-process --als-url URL --front-url URL --seed S [--name payeefsp1]\n');
  process.exit(2);
}
const oracle = await startOracleSim({ fsps: 1 });
const payee = await startPayeeFsp({
  name: values.name,
  alsUrl: values['als-url'],
  frontUrl: values['front-url'],
  seed: values.seed,
});
process.stdout.write(`${JSON.stringify({ ready: true, oracle: oracle.url, payee: payee.url })}\n`);
process.once('SIGTERM', () => {
  process.stderr.write(`${JSON.stringify({ payee: payee.stats })}\n`);
  Promise.all([payee.close(), oracle.close()]).then(() => process.exit(0));
});
