import type { KafkaSecurity } from './types.js';

/**
 * @platformatic/kafka's connection options for the security settings: every client and connection pool of
 * ours (consumer, producer, the fetch pools, the topic check's admin) takes the same, so none of them speaks
 * plaintext to a TLS listener. Its `tls` is Node's tls.connect options; `tlsServerName: true` sends each
 * broker's host as the SNI name.
 */
export function platformaticConnection(security: KafkaSecurity) {
  return {
    ...(security.tls === undefined ? {} : { tls: security.tls, tlsServerName: security.serverName }),
    ...(security.sasl === undefined ? {} : { sasl: { ...security.sasl } }),
  };
}
