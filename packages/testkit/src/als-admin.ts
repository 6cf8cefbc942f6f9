/**
 * POST /oracles on an ALS's admin API, as an operator registers an oracle: `oracleUrl` becomes the default
 * oracle of MSISDN. Answers the status (201 when registered), the body read.
 */
export async function registerOracle(adminUrl: string, oracleUrl: string, timeoutMs = 10_000): Promise<number> {
  const answer = await fetch(`${adminUrl}/oracles`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', date: new Date().toUTCString(), 'fspiop-source': 'Hub' },
    body: JSON.stringify({
      oracleIdType: 'MSISDN',
      endpoint: { value: oracleUrl, endpointType: 'URL' },
      isDefault: true,
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await answer.arrayBuffer();
  return answer.status;
}
