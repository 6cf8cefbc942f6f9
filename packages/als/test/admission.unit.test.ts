import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Admission, createAdmission } from '../src/http/admission.js';

// The slots of lookups waiting for their payee's callback: which callback frees which slot.

const opened: Admission[] = [];
afterEach(() => {
  for (const admission of opened.splice(0)) admission.close();
});

function admission(limit: number, callbackWaitMs = 60_000): Admission {
  const created = createAdmission(limit, callbackWaitMs);
  opened.push(created);
  return created;
}

const party = (type: string, id: string, subId?: string) => ({ type, id, subId });

/** A lookup accepted: its slot taken and now waiting for the callback about `type`/`id`/`subId` for `requester`. */
function lookup(slots: Admission, requester: string, type: string, id: string, subId?: string) {
  expect(slots.tryEnter()).toBe(true);
  return slots.expectCallback({ party: party(type, id, subId), requester });
}

describe('admission', () => {
  it('frees a slot only for the callback about the same party, sub-ID and requester', () => {
    const slots = admission(10);
    lookup(slots, 'payerfsp', 'MSISDN', '123');
    lookup(slots, 'payerfsp', 'MSISDN', '123', 'home');
    lookup(slots, 'otherfsp', 'MSISDN', '123');
    lookup(slots, 'payerfsp', 'EMAIL', '123');
    expect(slots.inFlight).toBe(4);
    slots.callbackArrived('MSISDN', '123', 'work', 'payerfsp');
    slots.callbackArrived('MSISDN', '999', undefined, 'payerfsp');
    slots.callbackArrived('ACCOUNT_ID', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(4);
    slots.callbackArrived('MSISDN', '123', 'home', 'payerfsp');
    expect(slots.inFlight).toBe(3);
    slots.callbackArrived('MSISDN', '123', undefined, 'otherfsp');
    slots.callbackArrived('EMAIL', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(1);
    // An empty sub-ID is the same as none.
    slots.callbackArrived('MSISDN', '123', '', 'payerfsp');
    expect(slots.inFlight).toBe(0);
    // A callback nobody waits for frees nothing more.
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(0);
  });

  it('frees one slot per callback, oldest first, past cancelled ones, and refuses past the limit', () => {
    const slots = admission(3);
    const first = lookup(slots, 'payerfsp', 'MSISDN', '123');
    lookup(slots, 'payerfsp', 'MSISDN', '123');
    lookup(slots, 'payerfsp', 'MSISDN', '123');
    expect(slots.tryEnter()).toBe(false);
    first.cancel();
    first.cancel();
    expect(slots.inFlight).toBe(2);
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(1);
    const later = lookup(slots, 'payerfsp', 'MSISDN', '123');
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(0);
    // The last one was freed by a callback: cancelling it frees nothing twice.
    later.cancel();
    expect(slots.inFlight).toBe(0);
  });

  it('frees a slot whose callback never came once its wait is over; a late callback frees nothing', async () => {
    const slots = admission(4, 20);
    lookup(slots, 'payerfsp', 'MSISDN', '123');
    lookup(slots, 'otherfsp', 'MSISDN', '123');
    slots.callbackArrived('MSISDN', '123', undefined, 'otherfsp');
    expect(slots.inFlight).toBe(1);
    await vi.waitFor(() => expect(slots.inFlight).toBe(0), { timeout: 2_000, interval: 20 });
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(0);
    // The ID's chain was dropped by the sweep: a new wait for it is freed by its callback.
    lookup(slots, 'payerfsp', 'MSISDN', '123');
    slots.callbackArrived('MSISDN', '123', undefined, 'payerfsp');
    expect(slots.inFlight).toBe(0);
  });
});
