import { randomInt } from 'node:crypto';

/**
 * Where the MSISDNs of a run come from: `new` never repeats (every lookup misses the oracle cache),
 * `hot` cycles through a small set (warm caches), `mix:F` takes a hot id with probability F.
 */
export type PartyIdMode =
  | { readonly kind: 'new' }
  | { readonly kind: 'hot'; readonly size: number }
  | {
      readonly kind: 'mix';
      readonly hotShare: number;
      readonly size: number;
    };

export function parsePartyIdMode(text: string, hotSetSize: number): PartyIdMode {
  if (text === 'new') return { kind: 'new' };
  if (text === 'hot') return { kind: 'hot', size: hotSetSize };
  const mix = /^mix:(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(text);
  if (mix) return { kind: 'mix', hotShare: Number(mix[1]), size: hotSetSize };
  throw new Error(`--ids must be new, hot or mix:F with F between 0 and 1, got "${text}"`);
}

export function partyIdSource(mode: PartyIdMode): () => string {
  // A per-run prefix keeps "new" ids new across runs against a long-lived oracle cache.
  const runPrefix = String(randomInt(100_000, 999_999));
  let next = 0;
  const fresh = () => `${runPrefix}${String(next++).padStart(9, '0')}`;
  const hotIds =
    mode.kind === 'new'
      ? []
      : Array.from({ length: mode.size }, (_, i) => `${runPrefix}9${String(i).padStart(8, '0')}`);
  let hotCursor = 0;
  const hot = () => hotIds[hotCursor++ % hotIds.length] as string;
  switch (mode.kind) {
    case 'new':
      return fresh;
    case 'hot':
      return hot;
    case 'mix':
      return () => (Math.random() < mode.hotShare ? hot() : fresh());
  }
}
