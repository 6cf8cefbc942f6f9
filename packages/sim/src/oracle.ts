import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerUnlessFaulted, type FaultOptions } from './faults.js';
import { type Bind, listen, pathSegments, queryOf, readBody, sendJson } from './http.js';

export interface PartyEntry {
  readonly fspId: string;
  readonly currency?: string;
  readonly partySubIdOrType?: string;
}

export interface OracleSimOptions {
  readonly port?: number;
  /** Listen address and advertised host (loopback by default). */
  readonly bind?: Bind;
  /** Generated mode: an unregistered ID resolves to payeefsp{(hash(ID) % fsps) + 1}. 0 turns it off. */
  readonly fsps?: number;
  /** IDs starting with this answer an empty partyList (party not found). Default '404'. */
  readonly notFoundPrefix?: string;
  /** Explicit map "Type/ID" or "Type/ID/SubId" → parties; POST adds to it, DELETE removes. */
  readonly parties?: Readonly<Record<string, readonly PartyEntry[]>>;
  readonly faults?: FaultOptions;
}

export interface OracleSim {
  readonly url: string;
  readonly port: number;
  /** Requests answered (or faulted), by method; batch POSTs count as 'batch'. */
  readonly stats: { get: number; post: number; put: number; delete: number; batch: number; other: number };
  /** The parties an ID resolves to now (what a GET would answer). */
  lookup(type: string, id: string, subId?: string): PartyEntry[];
  /**
   * From now on, every request about this party (GET, POST, PUT, DELETE, or a batch naming it) is answered
   * with this status and body (JSON text; none: an empty body) and changes nothing; undefined restores the
   * normal answers. What the tests of an oracle's 201/400/404 need.
   */
  answerWith(type: string, id: string, answer: ForcedAnswer | undefined): void;
  close(): Promise<void>;
}

export interface ForcedAnswer {
  readonly status: number;
  readonly body?: string;
}

/** FNV-1a: cheap, stable across runs, spreads sequential MSISDNs over the FSPs. */
export function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const emptyList = Buffer.from('{"partyList":[]}');

function badRequest(description: string): Buffer {
  return Buffer.from(JSON.stringify({ errorInformation: { errorCode: '3101', errorDescription: description } }));
}

/**
 * The `{fspId, currency}` body of a POST or PUT about one party, as its entry; undefined when the request was
 * answered 400 (3101) instead, because the body is not JSON or names no fspId.
 */
async function readPartyEntry(req: IncomingMessage, res: ServerResponse): Promise<PartyEntry | undefined> {
  let body: { fspId?: string; currency?: string };
  try {
    body = JSON.parse((await readBody(req)).toString('utf8'));
  } catch {
    sendJson(res, 400, badRequest('Malformed syntax - body is not JSON'));
    return undefined;
  }
  if (typeof body.fspId !== 'string') {
    sendJson(res, 400, badRequest('Malformed syntax - fspId is required'));
    return undefined;
  }
  return { fspId: body.fspId, ...(body.currency ? { currency: body.currency } : {}) };
}

export async function startOracleSim(opts: OracleSimOptions = {}): Promise<OracleSim> {
  const fsps = opts.fsps ?? 10;
  const notFoundPrefix = opts.notFoundPrefix ?? '404';
  const registered = new Map<string, PartyEntry[]>();
  // DELETE of a generated party must make it unresolvable, not fall back to the hash.
  const deleted = new Set<string>();
  for (const [key, list] of Object.entries(opts.parties ?? {})) registered.set(key, [...list]);
  const stats = { get: 0, post: 0, put: 0, delete: 0, batch: 0, other: 0 };
  const forced = new Map<string, ForcedAnswer>();
  const sendForced = (res: ServerResponse, answer: ForcedAnswer) =>
    sendJson(res, answer.status, answer.body === undefined ? undefined : Buffer.from(answer.body));

  const keyOf = (type: string, id: string, subId?: string) => (subId ? `${type}/${id}/${subId}` : `${type}/${id}`);

  const lookup = (type: string, id: string, subId?: string): PartyEntry[] => {
    const key = keyOf(type, id, subId);
    const explicit = registered.get(key);
    if (explicit) return explicit;
    if (deleted.has(key) || fsps <= 0 || (notFoundPrefix !== '' && id.startsWith(notFoundPrefix))) return [];
    const fspId = `payeefsp${(hashId(id) % fsps) + 1}`;
    return [subId ? { fspId, partySubIdOrType: subId } : { fspId }];
  };

  const register = (type: string, id: string, subId: string | undefined, entry: PartyEntry): void => {
    const key = keyOf(type, id, subId);
    deleted.delete(key);
    const list = (registered.get(key) ?? []).filter(
      (e) => e.fspId !== entry.fspId || (e.currency ?? '') !== (entry.currency ?? ''),
    );
    list.push(entry);
    registered.set(key, list);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const segments = pathSegments(req.url);
    if (segments[0] !== 'participants') {
      stats.other++;
      req.resume();
      sendJson(res, 404, undefined);
      return;
    }
    if (segments.length === 1 && req.method === 'POST') {
      stats.batch++;
      const body = JSON.parse((await readBody(req)).toString('utf8')) as {
        currency?: string;
        partyList?: {
          partyIdType: string;
          partyIdentifier: string;
          partySubIdOrType?: string;
          fspId: string;
          currency?: string;
        }[];
      };
      const forcedAnswer = (body.partyList ?? [])
        .map((p) => forced.get(keyOf(p.partyIdType, p.partyIdentifier)))
        .find((a) => a !== undefined);
      if (forcedAnswer) {
        sendForced(res, forcedAnswer);
        return;
      }
      const results = (body.partyList ?? []).map((p) => {
        // The ALS sends the currency in each entry (the original's postParticipantsBatch).
        const currency = p.currency ?? body.currency;
        register(p.partyIdType, p.partyIdentifier, p.partySubIdOrType, {
          fspId: p.fspId,
          ...(currency ? { currency } : {}),
        });
        return { partyId: p };
      });
      sendJson(res, 201, JSON.stringify({ partyList: results }));
      return;
    }
    if (segments.length < 3 || segments.length > 4) {
      stats.other++;
      req.resume();
      sendJson(res, 404, undefined);
      return;
    }
    const [, type, id, subId] = segments as [string, string, string, string | undefined];
    const forcedAnswer = forced.get(keyOf(type, id));
    if (forcedAnswer) {
      req.resume();
      sendForced(res, forcedAnswer);
      return;
    }
    if (req.method === 'GET') {
      stats.get++;
      req.resume();
      const query = queryOf(req.url);
      const currency = query.get('currency');
      // The ALS asks for a sub-id as `?partySubIdOrType=` (account-lookup-service's oracle facade); a path
      // segment is still read.
      const list = lookup(type, id, subId ?? query.get('partySubIdOrType') ?? undefined).filter(
        (e) => !currency || !e.currency || e.currency === currency,
      );
      sendJson(res, 200, list.length === 0 ? emptyList : JSON.stringify({ partyList: list }));
      return;
    }
    if (req.method === 'POST') {
      stats.post++;
      const entry = await readPartyEntry(req, res);
      if (!entry) return;
      register(type, id, subId, entry);
      sendJson(res, 201, undefined);
      return;
    }
    if (req.method === 'PUT') {
      // The oracle API's update: the party now belongs to the body's fspId.
      stats.put++;
      const entry = await readPartyEntry(req, res);
      if (!entry) return;
      registered.set(keyOf(type, id, subId), [entry]);
      deleted.delete(keyOf(type, id, subId));
      sendJson(res, 200, undefined);
      return;
    }
    if (req.method === 'DELETE') {
      stats.delete++;
      req.resume();
      const key = keyOf(type, id, subId);
      registered.delete(key);
      deleted.add(key);
      sendJson(res, 204, undefined);
      return;
    }
    stats.other++;
    req.resume();
    sendJson(res, 405, undefined);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    answer(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 400, badRequest('Malformed syntax'));
    });
  };

  const running = await listen(
    (req, res) => answerUnlessFaulted(opts.faults, req, res, handle),
    opts.port ?? 0,
    opts.bind,
  );

  return {
    url: running.url,
    port: running.port,
    stats,
    lookup,
    answerWith(type, id, answer) {
      if (answer === undefined) forced.delete(keyOf(type, id));
      else forced.set(keyOf(type, id), answer);
    },
    close: running.close,
  };
}
