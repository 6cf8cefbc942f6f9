import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings, seededRandom, type TestTopic, testKafka } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatAmount, parseAmount } from '../src/ledger/amount.js';
import { planBatch } from '../src/ledger/plan.js';
import type { AccountFacts, LedgerCommand, TransferFacts } from '../src/ledger/types.js';
import { insertFxTransfers, insertTransfers, provisionLedger, type TransferSpec } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { fxPrepareMessage } from './fx-fixtures.js';
import {
  createTestLedger,
  kafkaClients,
  newTopics,
  openProducer,
  produce,
  type TestLedger,
  useKafkaClient,
} from './helpers.js';

/**
 * Crash safety: 20,000 mixed prepare/commit messages on 4 partitions, the handler (built dist,
 * its own process) SIGKILLed at random points at least five times and restarted. At the end: every transfer
 * applied exactly once, every position equal to the sum of its position changes, and everything equal to a
 * pure in-memory replay of the same messages. The kill points are random: the seed is printed, and SEED=<n>
 * replays the same delays.
 */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const TRANSFERS_EACH = Number(process.env.POSITION_CRASH_TRANSFERS ?? 10_000);
const KILLS = Number(process.env.POSITION_CRASH_KILLS ?? 6);
const CAP = String(TRANSFERS_EACH * 2);
const dfspNames = Array.from({ length: 8 }, (_, i) => `crash${i}`);

describe.each(kafkaClients)('crash (KAFKA_CLIENT=%s)', (kafkaClient) => {
  beforeAll(() => useKafkaClient(kafkaClient));

  let ledger: TestLedger;
  let input: TestTopic;
  let output: TestTopic;
  const processes = new Set<ChildProcess>();
  let log = '';

  // dist/position.js is built once for the whole run by the vitest global setup (testkit build-setup).
  beforeAll(async () => {
    ledger = await createTestLedger('position_crash', {
      currencies: ['USD'],
      dfsps: dfspNames.map((name) => ({ name, netDebitCap: CAP, liquidity: '1000000' })),
    });
    [input, output] = await newTopics('position_crash', 4);
  }, 120_000);

  afterAll(async () => {
    for (const child of processes) child.kill('SIGKILL');
    await input?.drop();
    await output?.drop();
    await ledger?.drop();
  });

  function startHandler(topics: Record<string, string> = {}): ChildProcess {
    const settings = loadInfraSettings();
    const { connection } = ledger.db;
    const child = spawn(process.execPath, ['dist/position.js'], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        KAFKA_BROKERS: settings.kafka.brokers.join(','),
        POSITION_TOPICS: input.name,
        NOTIFICATION_TOPIC: output.name,
        POSITION_CONSUMER_GROUP: `${input.name}-group`,
        // Small chunks: many DB commits and offset commits to be killed between, and a pace the kills can
        // still cut into on a fast machine (at 200 the last process could finish the backlog before its kill).
        POSITION_BATCH_SIZE: '50',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        DB_HOST: connection.host,
        DB_PORT: String(connection.port),
        DB_USER: connection.user,
        DB_PASSWORD: connection.password,
        DB_NAME: connection.database,
        POSITION_HTTP_PORT: '0',
        LOG_LEVEL: process.env.POSITION_TEST_LOG ? 'info' : 'warn',
        KAFKA_CLIENT: kafkaClient,
        ...topics,
      },
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-20_000);
    });
    processes.add(child);
    child.once('exit', () => processes.delete(child));
    return child;
  }

  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });

  async function appliedCount(): Promise<number> {
    const [row] = await ledger
      .knex('transferStateChange')
      .count({ n: '*' })
      .whereIn('transferStateId', ['ABORTED_REJECTED', 'COMMITTED'])
      .orWhere((q) =>
        q
          .where('transferStateId', 'RESERVED')
          .whereNotIn(
            'transferId',
            ledger.knex('transferStateChange').select('transferId').where('transferStateId', 'RECEIVED_FULFIL'),
          ),
      );
    return Number(row?.n);
  }

  async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    await vi.waitFor(
      async () => {
        if (!(await condition())) throw new Error(`not yet; handler log tail:\n${log.slice(-3000)}`);
      },
      { timeout: timeoutMs, interval: 100 },
    );
  }

  it('applies 20,000 prepares and commits exactly once through seven SIGKILLs and rebalances', {
    timeout: 240_000,
  }, async () => {
    const account = (name: string) => {
      const found = ledger.ledger.accounts.get(`${name}:USD`);
      if (!found) throw new Error(name);
      return found;
    };
    const amounts = (i: number) => `${1 + (i % 50)}.${String(i % 100).padStart(2, '0')}`;
    const prepares = generateTransfers({ transfers: TRANSFERS_EACH, dfsps: dfspNames, currencies: ['USD'] }).map(
      (t, i) => ({
        ...t,
        amount: amounts(i),
      }),
    );
    const commits = generateTransfers({ transfers: TRANSFERS_EACH, dfsps: dfspNames, currencies: ['USD'] }).map(
      (t, i) => ({
        ...t,
        payer: dfspNames[(i + 3) % dfspNames.length] as string,
        amount: i % 2 === 0 ? '1' : '2.5',
      }),
    );
    const specs: TransferSpec[] = [
      ...prepares.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      ...commits.map((t) => ({ ...t, state: 'RECEIVED_FULFIL' as const })),
    ];
    await insertTransfers(ledger.knex, specs, ledger.ledger.accounts);
    const accountOf = (dfsp: string) => account(dfsp).position;
    const prepareMessages = generatePositionMessages({ transfers: prepares, action: 'prepare', accountOf });
    const commitMessages = generatePositionMessages({ transfers: commits, action: 'commit', accountOf });
    const mixed = prepareMessages.flatMap((p, i) => [p, commitMessages[i] as { key: string; value: string }]);
    const producer = await openProducer();
    await produce(producer, input.name, mixed);
    await producer.disconnect();

    // The pure replay: the same commands in topic order (one key is one partition, so per-account order is
    // the produce order) from the provisioned state.
    const transfers = new Map<string, TransferFacts>();
    for (const t of prepares)
      transfers.set(t.transferId, {
        history: [{ transferStateId: 'RECEIVED_PREPARE', reason: null }],
        payeeAmount: undefined,
      });
    for (const t of commits) {
      transfers.set(t.transferId, {
        history: ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL'].map((transferStateId) => ({
          transferStateId,
          reason: null,
        })),
        payeeAmount: -parseAmount(t.amount),
      });
    }
    const accounts = new Map<string, AccountFacts>(
      dfspNames.map((name) => [
        String(account(name).position),
        {
          participantCurrencyId: String(account(name).position),
          participantPositionId: `pp${account(name).position}`,
          value: 0n,
          reservedValue: 0n,
          netDebitCap: parseAmount(CAP),
          liquidityCover: parseAmount('1000000'),
        },
      ]),
    );
    const commands: LedgerCommand[] = mixed.map((m, seq) => {
      const value = JSON.parse(m.value);
      const prepare = value.metadata.event.action === 'prepare';
      return {
        seq,
        action: prepare ? 'prepare' : 'commit',
        transferId: value.id,
        accountId: m.key,
        ...(prepare ? { amount: parseAmount(value.content.context.cyrilResult.amount) } : {}),
      };
    });
    const replay = planBatch({ commands, accounts, transfers });
    const expectedPositions = new Map(
      replay.positionUpdates.map((u) => [u.participantPositionId.slice(2), formatAmount(u.value)]),
    );
    expect(replay.outcomes.filter((o) => o.result === 'rejected').length).toBeGreaterThan(0);

    // The kill points: printed, replayed with SEED=.
    const random = seededRandom(`crash kill points (KAFKA_CLIENT=${kafkaClient})`);
    let done = 0;
    // From the second to the fourth round a second process of the same group runs beside the one that is
    // killed, so partitions also move between live members (rebalances), not only from dead ones.
    let buddy: ChildProcess | undefined;
    for (let kill = 0; kill < KILLS; kill++) {
      if (kill === 1) buddy = startHandler();
      if (kill === 4 && buddy) {
        buddy.kill('SIGKILL');
        await exited(buddy);
      }
      const child = startHandler();
      const before = await appliedCount();
      // Kill once this run has made progress, at a random moment inside its work.
      await waitFor(async () => (await appliedCount()) > before || child.exitCode !== null, 60_000);
      await new Promise((r) => setTimeout(r, random.int(0, 400)));
      child.kill('SIGKILL');
      await exited(child);
      done = await appliedCount();
      if (done >= 2 * TRANSFERS_EACH) break;
    }
    expect(done).toBeLessThan(2 * TRANSFERS_EACH); // the kills really cut into the work

    const last = startHandler();
    const admin = testKafka().admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(input.name);
      let state = '';
      await waitFor(async () => {
        const [committed] = await admin.fetchOffsets({ groupId: `${input.name}-group`, topics: [input.name] });
        state = `applied ${await appliedCount()}; committed ${JSON.stringify(committed?.partitions)}; ends ${JSON.stringify(ends)}`;
        return ends.every(
          (end) =>
            end.offset === '0' ||
            committed?.partitions.find((p) => p.partition === end.partition)?.offset === end.offset,
        );
      }, 120_000).catch((error: Error) => {
        throw new Error(`${state}\n${error.message}`);
      });
    } finally {
      await admin.disconnect();
    }
    last.kill('SIGINT');
    expect(await exited(last)).toBe(0);

    // Exactly once: one result state per transfer.
    const results = await ledger
      .knex('transferStateChange')
      .select('transferId', 'transferStateId')
      .whereIn('transferStateId', ['RESERVED', 'ABORTED_REJECTED', 'COMMITTED'])
      .orderBy('transferStateChangeId');
    const finalState = new Map<string, string[]>();
    for (const row of results as { transferId: string; transferStateId: string }[]) {
      finalState.set(row.transferId, [...(finalState.get(row.transferId) ?? []), row.transferStateId]);
    }
    for (const t of prepares) expect(finalState.get(t.transferId)).toHaveLength(1);
    for (const t of commits) expect(finalState.get(t.transferId)).toEqual(['RESERVED', 'COMMITTED']);
    const replayStates = new Map(replay.stateChanges.map((s) => [s.transferId, s.transferStateId]));
    const mismatched = prepares.filter((t) => finalState.get(t.transferId)?.[0] !== replayStates.get(t.transferId));
    expect(mismatched).toEqual([]);

    // Positions: equal to the sum of their changes, and to the replay.
    const rows = (await ledger.knex.raw(
      `SELECT pp.participantCurrencyId AS id, pp.value AS value, COALESCE(SUM(ppc.change), 0) AS total, COUNT(ppc.participantPositionChangeId) AS n
       FROM participantPosition pp LEFT JOIN participantPositionChange ppc ON ppc.participantPositionId = pp.participantPositionId
      WHERE pp.participantCurrencyId IN (${dfspNames.map(() => '?').join(',')}) GROUP BY pp.participantPositionId`,
      dfspNames.map((n) => account(n).position),
    )) as [{ id: number; value: string; total: string; n: number }[]];
    for (const row of rows[0]) {
      expect(formatAmount(parseAmount(row.total))).toBe(row.value);
      expect(row.value).toBe(expectedPositions.get(String(row.id)) ?? '0.0000');
    }
    expect(rows[0].reduce((sum, r) => sum + Number(r.n), 0)).toBe(replay.positionChanges.length);

    // Nothing lost on the way out: every transfer was notified at least once.
    const seen = new Set<string>();
    const reader = testKafka().consumer({ groupId: `${output.name}-reader`, maxWaitTimeInMs: 50 });
    await reader.connect();
    await reader.subscribe({ topic: output.name, fromBeginning: true });
    await reader.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) seen.add(JSON.parse(String(m.value)).id);
      },
    });
    await waitFor(async () => seen.size >= 2 * TRANSFERS_EACH, 60_000).finally(() => reader.disconnect());
    expect(seen.size).toBe(2 * TRANSFERS_EACH);
  });

  it('applies fx-prepares interleaved with prepares exactly once through SIGKILLs: states and positions equal a pure replay, every one notified', {
    timeout: 180_000,
  }, async () => {
    const count = Number(process.env.POSITION_CRASH_FX_TRANSFERS ?? 6_000);
    const payers = ['crashfx0', 'crashfx1', 'crashfx2', 'crashfx3'];
    // A cap that rejects some: plain and FX prepares share the headroom of their payer.
    const cap = String(Math.floor((count / payers.length) * 1.5));
    const fxLedger = await provisionLedger(ledger.knex, {
      currencies: ['USD', 'EUR'],
      dfsps: [...payers, 'crashfxp', 'crashfxpayee'].map((name) => ({ name, netDebitCap: cap, liquidity: '1000000' })),
    });
    const accountOf = (name: string) => fxLedger.accounts.get(`${name}:USD`)?.position as number;
    const [fxIn, fxOut] = await newTopics('position_crash_fx', 4);
    const plain = generateTransfers({ transfers: count / 2, dfsps: payers, currencies: ['USD'] }).map((t, i) => ({
      ...t,
      payer: payers[i % payers.length] as string,
      payee: 'crashfxpayee',
      amount: String(1 + (i % 3)),
    }));
    const fxs = plain.map((_t, i) => ({
      commitRequestId: randomUUID(),
      determiningTransferId: randomUUID(),
      initiator: payers[(i + 1) % payers.length] as string,
      fxp: 'crashfxp',
      sourceCurrency: 'USD',
      sourceAmount: String(1 + (i % 2)),
      targetCurrency: 'EUR',
      targetAmount: '1',
    }));
    await insertTransfers(
      ledger.knex,
      plain.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      fxLedger.accounts,
    );
    await insertFxTransfers(
      ledger.knex,
      fxs.map((fx) => ({ ...fx, state: 'RECEIVED_PREPARE' as const })),
      fxLedger.accounts,
    );
    const prepares = generatePositionMessages({ transfers: plain, action: 'prepare', accountOf });
    const messages = prepares.flatMap((p, i) => [
      p,
      fxPrepareMessage(fxs[i] as (typeof fxs)[number], accountOf((fxs[i] as (typeof fxs)[number]).initiator)),
    ]);
    const producer = await openProducer();
    await produce(producer, fxIn.name, messages);
    await producer.disconnect();

    // The pure replay, in topic order (one key is one partition).
    const replay = planBatch({
      commands: messages.map((m, seq) => {
        const value = JSON.parse(m.value);
        const fx = value.metadata.event.action === 'fx-prepare';
        const payload = JSON.parse(Buffer.from(value.content.payload.split(',')[1], 'base64').toString());
        return {
          seq,
          action: fx ? 'fx-prepare' : 'prepare',
          transferId: fx ? payload.commitRequestId : payload.transferId,
          accountId: m.key,
          amount: parseAmount(fx ? payload.sourceAmount.amount : payload.amount.amount),
        } satisfies LedgerCommand;
      }),
      accounts: new Map(
        payers.map((name) => [
          String(accountOf(name)),
          {
            participantCurrencyId: String(accountOf(name)),
            participantPositionId: `pp${accountOf(name)}`,
            value: 0n,
            reservedValue: 0n,
            netDebitCap: parseAmount(cap),
            liquidityCover: parseAmount('1000000'),
          },
        ]),
      ),
      transfers: new Map(
        plain.map((t) => [
          t.transferId,
          { history: [{ transferStateId: 'RECEIVED_PREPARE', reason: null }], payeeAmount: undefined },
        ]),
      ),
      fxTransfers: new Map(
        fxs.map((fx) => [
          fx.commitRequestId,
          { history: [{ transferStateId: 'RECEIVED_PREPARE', reason: null }], reservedChanges: new Map() },
        ]),
      ),
    });
    expect(replay.outcomes.filter((o) => o.result === 'rejected').length).toBeGreaterThan(0);

    const resultsOf = async () => {
      const tsc = await ledger
        .knex('transferStateChange')
        .select('transferId as id', 'transferStateId as state')
        .whereIn('transferStateId', ['RESERVED', 'ABORTED_REJECTED'])
        .whereIn(
          'transferId',
          plain.map((t) => t.transferId),
        );
      const fsc = await ledger
        .knex('fxTransferStateChange')
        .select('commitRequestId as id', 'transferStateId as state')
        .whereIn('transferStateId', ['RESERVED', 'ABORTED_REJECTED'])
        .whereIn(
          'commitRequestId',
          fxs.map((fx) => fx.commitRequestId),
        );
      return [...tsc, ...fsc] as { id: string; state: string }[];
    };
    const env = {
      POSITION_TOPICS: fxIn.name,
      NOTIFICATION_TOPIC: fxOut.name,
      POSITION_CONSUMER_GROUP: `${fxIn.name}-group`,
    };
    const random = seededRandom(`crash fx kill points (KAFKA_CLIENT=${kafkaClient})`);
    try {
      for (let kill = 0; kill < 3; kill++) {
        const child = startHandler(env);
        const before = (await resultsOf()).length;
        await waitFor(async () => (await resultsOf()).length > before || child.exitCode !== null, 60_000);
        await new Promise((r) => setTimeout(r, random.int(0, 100)));
        child.kill('SIGKILL');
        await exited(child);
        if ((await resultsOf()).length >= count) break;
      }
      expect((await resultsOf()).length).toBeLessThan(count); // the kills really cut into the work
      const last = startHandler(env);
      await waitFor(async () => (await resultsOf()).length >= count, 120_000);
      last.kill('SIGINT');
      expect(await exited(last)).toBe(0);

      // Exactly once, and the same outcome as the replay.
      const results = await resultsOf();
      expect(results).toHaveLength(count);
      const expected = new Map(replay.stateChanges.map((s) => [s.transferId, s.transferStateId]));
      expect(results.filter((r) => expected.get(r.id) !== r.state)).toEqual([]);
      const expectedPositions = new Map(
        replay.positionUpdates.map((u) => [u.participantPositionId.slice(2), formatAmount(u.value)]),
      );
      for (const name of payers) {
        const row = (await ledger.knex.raw(
          `SELECT pp.value AS value, COALESCE(SUM(ppc.change), 0) AS total FROM participantPosition pp
           LEFT JOIN participantPositionChange ppc ON ppc.participantPositionId = pp.participantPositionId
          WHERE pp.participantCurrencyId = ? GROUP BY pp.participantPositionId`,
          [accountOf(name)],
        )) as [{ value: string; total: string }[]];
        expect(formatAmount(parseAmount(String(row[0][0]?.total)))).toBe(row[0][0]?.value);
        expect(row[0][0]?.value).toBe(expectedPositions.get(String(accountOf(name))) ?? '0.0000');
      }

      // Nothing lost on the way out: every transfer and fxTransfer was notified at least once.
      const seen = new Set<string>();
      const reader = testKafka().consumer({ groupId: `${fxOut.name}-reader`, maxWaitTimeInMs: 50 });
      await reader.connect();
      await reader.subscribe({ topic: fxOut.name, fromBeginning: true });
      await reader.run({
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) seen.add(JSON.parse(String(m.value)).id);
        },
      });
      await waitFor(async () => seen.size >= count, 60_000).finally(() => reader.disconnect());
      expect(seen.size).toBe(count);
    } finally {
      await fxIn.drop();
      await fxOut.drop();
    }
  });
});
