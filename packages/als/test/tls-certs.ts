import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA and a server certificate it signed for the loopback names, as files and as PEM text. */
export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  remove(): void;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });

/**
 * Made by openssl for each run (none checked in): a CA, and a server certificate it signed naming localhost
 * and 127.0.0.1, so a client that trusts the CA verifies the server and one that does not refuses it.
 */
export function makeCertificates(name = 'mojafast-test'): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'als-tls-'));
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name} CA`].concat([
      '-keyout',
      'ca-key.pem',
      '-out',
      'ca.pem',
    ]),
    dir,
  );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-keyout',
      'server-key.pem',
      '-out',
      'server.csr',
    ],
    dir,
  );
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '2',
    ].concat(['-extfile', 'ext.cnf', '-out', 'server.pem']),
    dir,
  );
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: read('ca.pem'),
    cert: read('server.pem'),
    key: read('server-key.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
