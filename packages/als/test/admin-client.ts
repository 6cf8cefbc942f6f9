import { request } from 'undici';

/** The headers the original's admin document requires (Accept is not declared on PUT but does no harm). */
export const adminHeaders = (): Record<string, string> => ({
  accept: 'application/json',
  'content-type': 'application/json',
  date: new Date().toUTCString(),
});

export interface AdminAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The JSON body, or undefined when there is none (or it is not JSON). */
  readonly json: unknown;
}

/** One request to an ALS admin port with the admin headers (or the ones given), the body as JSON. */
export async function adminCall(
  adminUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  path: string,
  body?: unknown,
  headers: Record<string, string> = adminHeaders(),
): Promise<AdminAnswer> {
  const res = await request(`${adminUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The errorInformation of an admin answer. */
export const errorOf = (answer: AdminAnswer) =>
  (answer.json as { errorInformation?: { errorCode: string; errorDescription: string } }).errorInformation;
