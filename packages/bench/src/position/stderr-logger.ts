/** Errors and warnings as JSON lines on stderr, the rest dropped: the bench's child processes keep stdout for their ready line. */
export function quietLogger() {
  const write = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
  return { error: write('error'), warn: write('warn'), info: () => {}, debug: () => {} };
}
