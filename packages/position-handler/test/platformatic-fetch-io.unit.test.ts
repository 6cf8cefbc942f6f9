import { type ClusterMetadata, IS_CONTROL } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { type FetchResponse, fetchedPartitions, outOfRange, topicNames } from '../src/bus/platformatic-fetch-io.js';

/**
 * The adapter's reading of @platformatic/kafka's fetch responses, on hand-built responses: what the fetcher
 * gets is the records from each requested offset on, without transaction markers, and the offset after them.
 */
const metadata = { topics: new Map([['positions', { id: 'id-positions' }]]) } as unknown as ClusterMetadata;
const names = topicNames(metadata, ['positions']);

function recordBatch(firstOffset: number, count: number, attributes = 0) {
  return {
    firstOffset: BigInt(firstOffset),
    lastOffsetDelta: count - 1,
    attributes,
    records: Array.from({ length: count }, (_, i) => ({
      offsetDelta: i,
      key: Buffer.from(`k${firstOffset + i}`),
      value: Buffer.from(`v${firstOffset + i}`),
    })),
  };
}

function response(
  parts: { partitionIndex: number; records?: ReturnType<typeof recordBatch>[]; errorCode?: number }[],
): FetchResponse {
  return {
    responses: [
      {
        topicId: 'id-positions',
        partitions: parts.map((p) => ({ highWatermark: 100n, errorCode: 0, ...p })),
      },
    ],
  } as unknown as FetchResponse;
}

describe('platformatic fetch responses', () => {
  it('names topics by their id and keeps the records from the requested offset on (a compressed batch comes whole)', () => {
    const [part] = fetchedPartitions(response([{ partitionIndex: 0, records: [recordBatch(10, 5)] }]), names, [
      { topic: 'positions', partition: 0, offset: 12n },
    ]);
    expect(part?.topic).toBe('positions');
    expect(part?.messages.map((m) => m.offset)).toEqual(['12', '13', '14']);
    expect(part?.messages[0]?.value?.toString()).toBe('v12');
    expect(part?.nextOffset).toBe(15n);
    expect(part?.highWatermark).toBe('100');
  });

  it('leaves transaction markers out but steps over them, and answers the requested offset when nothing came', () => {
    const fetched = fetchedPartitions(
      response([
        { partitionIndex: 0, records: [recordBatch(3, 1), recordBatch(4, 1, IS_CONTROL)] },
        { partitionIndex: 1, records: [recordBatch(7, 1, IS_CONTROL)] },
        { partitionIndex: 2 },
      ]),
      names,
      [
        { topic: 'positions', partition: 0, offset: 3n },
        { topic: 'positions', partition: 1, offset: 7n },
        { topic: 'positions', partition: 2, offset: 9n },
      ],
    );
    expect(fetched.map((p) => [p.partition, p.messages.map((m) => m.offset), p.nextOffset])).toEqual([
      [0, ['3'], 5n],
      [1, [], 8n],
      [2, [], 9n],
    ]);
  });

  it('drops partitions the request did not ask for (a fetch session may add them)', () => {
    const fetched = fetchedPartitions(response([{ partitionIndex: 5, records: [recordBatch(0, 1)] }]), names, [
      { topic: 'positions', partition: 0, offset: 0n },
    ]);
    expect(fetched).toEqual([]);
  });

  it('reads OFFSET_OUT_OF_RANGE partitions from a failed fetch, and none from an error without a response', () => {
    const error = Object.assign(new Error('fetch failed'), {
      response: response([
        { partitionIndex: 0, errorCode: 1 },
        { partitionIndex: 1, errorCode: 6 },
      ]),
    });
    expect(outOfRange(error, names)).toEqual([{ topic: 'positions', partition: 0 }]);
    expect(outOfRange(new Error('socket closed'), names)).toEqual([]);
  });
});
