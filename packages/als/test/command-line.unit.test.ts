import { describe, expect, it } from 'vitest';
import { CommandLineError, parseCommandLine } from '../src/command-line.js';

// account-lookup-service's command lines (src/index.js `server`, src/handlers/index.js `handlers`, both
// commander), as the charts' deployments give them, and what each process serves.
describe("account-lookup-service's command line", () => {
  it.each([
    [[], { api: true, admin: true, timeoutHandler: 'when-on' }],
    [['server', '--api'], { api: true, admin: false, timeoutHandler: false }],
    [['server', '--admin'], { api: false, admin: true, timeoutHandler: false }],
    [['s', '--admin'], { api: false, admin: true, timeoutHandler: false }],
    [['server'], { api: true, admin: true, timeoutHandler: false }],
    // The original's action tests --api first: both flags start the API only.
    [['server', '--api', '--admin'], { api: true, admin: false, timeoutHandler: false }],
    [['server', '--admin', '--api'], { api: true, admin: false, timeoutHandler: false }],
    [['handlers', '--timeout'], { api: false, admin: false, timeoutHandler: true }],
    [['h', '--timeout'], { api: false, admin: false, timeoutHandler: true }],
  ])('%j serves %j', (args, role) => {
    expect(parseCommandLine(args)).toMatchObject({ ...role, command: args.join(' ') });
  });

  it('says what it ignores of `server --api --admin`', () => {
    expect(parseCommandLine(['server', '--api', '--admin']).ignored).toMatch(/^--admin: /);
    expect(parseCommandLine(['server', '--api']).ignored).toBeUndefined();
  });

  it.each([
    [['serve'], /^unknown command "serve": this is account-lookup-service; run it as `server --api`/],
    [['handler', '--timeout'], /^unknown command "handler"/],
    [['server', '--apu'], /^unknown option "--apu" of the server command: it takes --api or --admin$/],
    [['server', '--timeout'], /^unknown option "--timeout" of the server command/],
    [['handlers'], /^handlers names no handler: give --timeout$/],
    [['handlers', '--api'], /^unknown option "--api" of the handlers command: it takes --timeout$/],
  ])('refuses %j in one line naming the command', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(CommandLineError);
    expect(() => parseCommandLine(args)).toThrow(message);
  });
});
