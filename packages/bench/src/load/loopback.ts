import { isIP } from 'node:net';

/**
 * Load is only ever sent to this machine unless the operator says otherwise: a benchmark pointed at a
 * shared cluster by mistake is a denial of service. 127.0.0.0/8, ::1 and localhost count as loopback.
 */
export function assertLoopback(url: string, allowRemote: boolean): void {
  if (allowRemote) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback) {
    throw new Error(`refusing to send load to ${host}: not a loopback address (pass --allow-remote to mean it)`);
  }
}
