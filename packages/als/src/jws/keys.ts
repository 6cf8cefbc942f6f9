import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * The JWS keys from files, as the original loads them (src/plugins.js loadJwsKeys, src/lib/config.js):
 * one public key per FSP in a directory, `{fspId}.pem`; the Hub's private key in one file (PKCS#1 or
 * PKCS#8 PEM, RSA or EC). A key that does not parse stops the start naming the file.
 */
export function loadVerificationKeys(directory: string): ReadonlyMap<string, KeyObject> {
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
