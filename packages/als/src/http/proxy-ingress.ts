import type { DiscoveryPorts, HeaderMap } from '../discovery/types.js';

/**
 * FSPIOP-Proxy at the door, used only when inter-scheme discovery is on (the routes read it behind
 * `ports.interScheme`). An FspId is 1-32 characters (the API's FspId schema, the proxy cache's dfspId rule).
 */
export function proxyHeaderOf(headers: HeaderMap): string | undefined {
  const value = headers['fspiop-proxy'];
  return Array.isArray(value) ? value[0] : value;
}

const isFspId = (value: string) => value.length >= 1 && value.length <= 32;

/**
 * The proxy a GET /parties from another scheme came through: FSPIOP-Source is no active participant and
 * FSPIOP-Proxy names an active one (GetPartiesService.validateRequester). Undefined otherwise: a source of
 * this scheme needs no proxy, and a malformed or unknown proxy leaves the source check to answer 400 3101
 * (what the original answers a source it does not know).
 */
export async function proxiedRequester(
  ports: DiscoveryPorts,
  source: string,
  proxy: string,
): Promise<string | undefined> {
  if (!isFspId(proxy) || !isFspId(source)) return undefined;
  try {
    const [fromSource, fromProxy] = await Promise.all([
      ports.directory.participant(source),
      ports.directory.participant(proxy),
    ]);
    // A source central-ledger knows (active or not) is of this scheme, as the original's validateRequester.
    if (fromSource !== undefined) return undefined;
    return fromProxy !== undefined ? proxy : undefined;
  } catch {
    return undefined;
  }
}
