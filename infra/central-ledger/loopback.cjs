'use strict';
// Preloaded into central-ledger's processes (node --require): its HTTP servers (hapi, given a port only)
// would listen on every interface; a local service listens on loopback only. A listen() without a host
// gets CENTRAL_LEDGER_HOST.
const net = require('node:net');

const host = process.env.CENTRAL_LEDGER_HOST || '127.0.0.1';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): add the host when the second argument is not one.
    if (typeof args[1] !== 'string') args.splice(1, 0, host);
  } else if (first !== null && typeof first === 'object' && !Array.isArray(first) && first.port !== undefined) {
    if (!first.host || first.host === '0.0.0.0' || first.host === '::') args[0] = { ...first, host };
  }
  return listen.apply(this, args);
};
