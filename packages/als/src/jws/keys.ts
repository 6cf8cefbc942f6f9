import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { type FSWatcher, readdirSync, readFileSync, watch } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * The JWS keys from files, as the original loads them (src/plugins.js loadJwsKeys, src/lib/config.js):
 * one public key per FSP in a directory, `{fspId}.pem`; the Hub's private key in one file (PKCS#1 or
 * PKCS#8 PEM, RSA or EC). A key that does not parse stops the start naming the file.
 */
export function loadVerificationKeys(directory: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  let files: string[];
  try {
    files = readdirSync(directory);
  } catch (error) {
    throw new Error(`JWS verification keys directory ${directory} cannot be read: ${(error as Error).message}`);
  }
  for (const file of files.filter((f) => f.endsWith('.pem')).sort()) {
    const path = join(directory, file);
    try {
      keys.set(basename(file, '.pem'), createPublicKey(readFileSync(path)));
    } catch (error) {
      throw new Error(`JWS verification key ${path} is not a PEM public key: ${(error as Error).message}`);
    }
  }
  return keys;
}

/** What the watcher logs through (pino's signature); declared here, as jws/ imports no other layer. */
export interface KeyWatchLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface KeyWatcher {
  close(): void;
}

/**
 * Keeps `keys` in step with the directory while the ALS runs, as the original watches
 * JWS_VERIFICATION_KEYS_DIRECTORY (src/plugins.js watchJwsKeys): a key file added or replaced is used, one
 * removed is no longer trusted. Requests read only the Map (no file system per request). Where the original
 * re-reads the one `.pem` an event names, every change here re-reads the whole directory after `delayMs`
 * (events of one write come in bursts): a Kubernetes Secret volume swaps its files through a `..data` symlink,
 * an event that names no `.pem`, which the original misses. A file that does not parse is dropped with an
 * error line naming it (the original keeps its bytes and fails every request of that FSP at verification).
 */
export function watchVerificationKeys(
  directory: string,
  keys: Map<string, KeyObject>,
  log: KeyWatchLogger,
  delayMs = 100,
): KeyWatcher {
  let timer: NodeJS.Timeout | undefined;
  // One reload at a time, in order: a slow one finishing late cannot undo a newer one.
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const reload = async () => {
    const files = (await readdir(directory)).filter((f) => f.endsWith('.pem'));
    const seen = new Set<string>();
    for (const file of files) {
      const name = basename(file, '.pem');
      seen.add(name);
      const path = join(directory, file);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        // Removed between the listing and the read: the next event's reload removes the key.
        log.error({ err: error, path }, 'JWS verification key cannot be read');
        continue;
      }
      let key: KeyObject;
      try {
        key = createPublicKey(text);
      } catch (error) {
        keys.delete(name);
        log.error({ err: error, path }, 'JWS verification key is not a PEM public key: that FSP is refused');
        continue;
      }
      if (keys.get(name)?.equals(key)) continue;
      keys.set(name, key);
      log.info({ fsp: name, path }, 'JWS verification key loaded');
    }
    for (const name of [...keys.keys()]) {
      if (seen.has(name)) continue;
      keys.delete(name);
      log.info({ fsp: name }, 'JWS verification key removed');
    }
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running
        .then(reload)
        .catch((error: unknown) => log.error({ err: error, directory }, 'JWS verification keys cannot be reloaded'));
    }, delayMs);
  };

  let watcher: FSWatcher;
  try {
    watcher = watch(directory, schedule);
  } catch (error) {
    throw new Error(`JWS verification keys directory ${directory} cannot be watched: ${(error as Error).message}`);
  }
  watcher.on('error', (error) => log.error({ err: error, directory }, 'JWS verification keys directory watch failed'));
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}

export function loadSigningKey(path: string): KeyObject {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (error) {
    throw new Error(`JWS signing key ${path} cannot be read: ${(error as Error).message}`);
  }
  try {
    return createPrivateKey(pem);
  } catch (error) {
    throw new Error(`JWS signing key ${path} is not a PEM private key: ${(error as Error).message}`);
  }
}
