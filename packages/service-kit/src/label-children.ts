/**
 * A metric child per pair of label values, made on first use and kept: the hot path is two Map look-ups,
 * with no label object or key string built per call (at thousands of messages a second, building them
 * showed in both services' profiles). prom-client still validates and hashes inside its own child calls.
 */
export function childrenByPair<A, B, T>(make: (a: A, b: B) => T): (a: A, b: B) => T {
  const outer = new Map<A, Map<B, T>>();
  return (a, b) => {
    let inner = outer.get(a);
    if (!inner) {
      inner = new Map();
      outer.set(a, inner);
    }
    let child = inner.get(b);
    if (!child) {
      child = make(a, b);
      inner.set(b, child);
    }
    return child;
  };
}
