// Starts Mojaloop's Testing Toolkit from its install (TTK_HOME) the way its own entry point does, with two
// changes its configuration cannot make: every server it opens listens on 127.0.0.1 only, and its API
// listens on TTK_API_PORT instead of the fixed 5050. Its FSP side's port is API_PORT of the system config
// in the working folder's spec_files, which the caller writes.
const net = require('node:net');
const path = require('node:path');

const home = process.env.TTK_HOME;
const apiPort = Number(process.env.TTK_API_PORT);
if (!home || !Number.isInteger(apiPort) || apiPort <= 0) {
  console.error('launch.cjs: set TTK_HOME (the install folder) and TTK_API_PORT');
  process.exit(2);
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, ...rest] = args;
  if (typeof first === 'object' && first !== null) return listen.call(this, { ...first, host: '127.0.0.1' }, ...rest);
  if (typeof first === 'number' || typeof first === 'string') {
    if (typeof rest[0] === 'string' || rest[0] === undefined || rest[0] === null) rest.shift();
    return listen.call(this, first, '127.0.0.1', ...rest);
  }
  return listen.apply(this, args);
};

const toolkit = path.join(home, 'node_modules/ml-testing-toolkit/src');
const apiServer = require(path.join(toolkit, 'lib/api-server'));
const startServer = apiServer.startServer;
apiServer.startServer = () => startServer(apiPort);
require(path.join(toolkit, 'index.js'));
