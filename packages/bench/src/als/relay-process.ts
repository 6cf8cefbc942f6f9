import { parseArgs } from 'node:util';
import { startRelay } from './relay.js';

/** The relay floor in a process of its own (relay.ts), as the ALS runs: prints one ready line when it listens. */
const { values } = parseArgs({
  options: { port: { type: 'string' }, switch: { type: 'string' }, oracle: { type: 'string' } },
});
if (!values.port || !values.switch || !values.oracle)
  throw new Error('usage: relay-process --port P --switch URL --oracle URL');
const app = await startRelay({ port: Number(values.port), switchEndpoint: values.switch, oracleUrl: values.oracle });
process.stdout.write(`${JSON.stringify({ ready: true, url: `http://127.0.0.1:${values.port}` })}\n`);
const close = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', close);
process.once('SIGINT', close);
