import { randomBytes } from 'node:crypto';

/**
 * A name no other test file or run will pick: topics and databases outlive a crashed run, and several
 * test files run at once against one broker and one server.
 */
export function uniqueName(prefix: string): string {
  const safe = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 32);
  return `${safe}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}
