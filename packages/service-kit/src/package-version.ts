import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of the package a module belongs to: the `version` of the nearest package.json above it (from
 * `src/` or `dist/` alike, and in an image, whose deploy output keeps the package.json). Read once at start,
 * where the originals give their package version: /health's versionNumber and the ALS's serviceVersion label.
 * A module with no package.json above it, or one without a version, stops the start naming the place.
 */
export function packageVersion(moduleUrl: string | URL): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, 'package.json'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined) {
      const version = (JSON.parse(text) as { version?: unknown }).version;
      if (typeof version !== 'string' || version === '') {
        throw new Error(`${join(dir, 'package.json')} has no version`);
      }
      return version;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
