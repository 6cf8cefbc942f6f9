import { CpuMeter } from '../system/cpu.js';
import { residentMegabytes } from '../system/memory.js';
import { type DriverResult, type LoadModel, runLookups } from './driver.js';
import { type PartyIdMode, partyIdSource } from './party-ids.js';
import type { ApiType, FspiopVersion } from './request.js';
import { type AlsStackOptions, startAlsStack } from './stack.js';

export interface Scenario {
  readonly name: string;
  readonly stack: AlsStackOptions;
  readonly model: LoadModel;
  readonly ids: PartyIdMode;
  readonly version: FspiopVersion;
  /** The ALS's API_TYPE (the stack's ALS_API_TYPE too); fspiop when absent. */
  readonly apiType?: ApiType | undefined;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly iterations?: number | undefined;
  readonly timeoutMs: number;
}

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly driver: DriverResult;
  /** Cores used per process during the measured window (generator = this process). */
  readonly cpu: Record<string, number>;
  /** Resident memory per process (MB, with its children) when the measured window ended. */
  readonly rssMb: Record<string, number>;
}

export async function runScenario(scenario: Scenario, onProgress?: (line: string) => void): Promise<ScenarioResult> {
  const stack = await startAlsStack(
    scenario.apiType === 'iso20022' ? { ...scenario.stack, apiType: scenario.apiType } : scenario.stack,
  );
  try {
    const processes = new Map([...stack.pids, ['generator', process.pid]]);
    const cpu = new CpuMeter(processes);
    let cpuStarted: Promise<void> | undefined;
    const driver = await runLookups({
      alsUrl: stack.entryUrl,
      payer: stack.payer,
      model: scenario.model,
      warmupSeconds: scenario.warmupSeconds,
      durationSeconds: scenario.durationSeconds,
      iterations: scenario.iterations,
      timeoutMs: scenario.timeoutMs,
      version: scenario.version,
      apiType: scenario.apiType,
      payerFsp: 'payerfsp',
      destination: stack.destination,
      nextPartyId: partyIdSource(scenario.ids),
      keyBy: scenario.stack.keyBy,
      onProgress: ({ elapsedSeconds, lookups, failed }) => {
        onProgress?.(
          `  ${elapsedSeconds.toFixed(0)}s  ${lookups} lookups  ${(lookups / elapsedSeconds).toFixed(0)}/s  ${failed} failed`,
        );
      },
      onMeasureStart: () => {
        cpuStarted = cpu.start();
      },
    });
    await cpuStarted;
    const cores = await cpu.stop();
    return { scenario, driver, cpu: cores, rssMb: await residentMegabytes(processes) };
  } finally {
    await stack.close();
  }
}
