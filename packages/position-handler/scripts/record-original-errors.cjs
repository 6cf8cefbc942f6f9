'use strict';
/*
 * Records what central-ledger's error library writes into an error notification's errorInformation, under each
 * ERROR_HANDLING setting, for every error our handler notifies: test/fixtures/original-errors.json. It runs the
 * library itself (@mojaloop/central-services-error-handling, as installed with central-ledger by `infra/svc
 * start central-ledger`), making each error the way central-ledger's src/domain/position/*.js make theirs and
 * calling toApiErrorObject(Config.ERROR_HANDLING) as they do. Run it with that install's own node:
 *
 *   dir=~/.cache/mojafast/central-ledger-19.5.5-node22
 *   $dir/node/node_modules/node/bin/node packages/position-handler/scripts/record-original-errors.cjs $dir \
 *     > packages/position-handler/test/fixtures/original-errors.json
 *
 * The cause extension is the error's stack, so its frames name this script and the install's paths; the test
 * compares the line before the frames (docs/differences.md).
 */
const { join } = require('node:path');
const { readFileSync } = require('node:fs');

const installed = process.argv[2];
if (!installed) {
  process.stderr.write('usage: node record-original-errors.cjs <central-ledger install directory>\n');
  process.exit(2);
}
const modules = join(installed, 'node_modules', '@mojaloop');
const library = join(modules, 'central-services-error-handling');
const { Factory, Enums } = require(library);
const version = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
const codes = Enums.FSPIOPErrorCodes;

// Each of our errors (src/ledger/errors.ts) with the detail our handler gives it, made as the original makes
// the error of the same case; `original` names where. Errors the original has no case for (it throws instead)
// are made with createFSPIOPError(code, detail), the library's general form.
const cases = [
  {
    name: 'LIQUIDITY',
    original: 'prepare.js, fx-prepare.js',
    make: () => Factory.createFSPIOPError(codes.PAYER_FSP_INSUFFICIENT_LIQUIDITY),
  },
  {
    name: 'LIMIT',
    original: 'prepare.js, fx-prepare.js',
    make: () => Factory.createFSPIOPError(codes.PAYER_LIMIT_ERROR),
  },
  {
    name: 'INCORRECT_STATE',
    original: 'prepare.js, fx-prepare.js (a prepare in the wrong state)',
    make: () => Factory.createFSPIOPError(codes.INTERNAL_SERVER_ERROR),
  },
  {
    name: 'INCORRECT_STATE',
    detail: 'Invalid State: RESERVED - expected: RECEIVED_FULFIL',
    original: 'fulfil.js, fx-fulfil.js',
    make: (detail) => Factory.createInternalServerFSPIOPError(detail),
  },
  {
    name: 'EXPIRED',
    original: 'timeout-reserved.js, fx-timeout-reserved.js',
    make: () => Factory.createFSPIOPError(codes.TRANSFER_EXPIRED, null, null, null, null),
  },
  {
    name: 'ABORT_VALIDATION',
    original: 'abort.js (abort-validation, fx-abort-validation)',
    make: () => Factory.createFSPIOPError(codes.VALIDATION_ERROR, null, null, null, null),
  },
  {
    name: 'ABORT_REJECTED',
    original:
      "none alike: abort.js forwards the payee's own errorInformation (createFSPIOPErrorFromErrorInformation); ours sends the catalogue's 5100",
    make: () => Factory.createFSPIOPError(codes.PAYEE_REJECTION),
  },
  {
    name: 'TRANSFER_NOT_FOUND',
    detail: 'no PAYEE_DFSP transferParticipant',
    original: 'none (throws)',
    make: (detail) => Factory.createFSPIOPError(codes.TRANSFER_ID_NOT_FOUND, detail),
  },
  {
    name: 'ACCOUNT_NOT_FOUND',
    detail: 'position account 99',
    original: 'none (throws)',
    make: (detail) => Factory.createFSPIOPError(codes.INTERNAL_SERVER_ERROR, detail),
  },
  {
    name: 'MALFORMED',
    original: 'none (throws)',
    make: () => Factory.createFSPIOPError(codes.MALFORMED_SYNTAX),
  },
  {
    name: 'BAD_CYRIL_RESULT',
    // Longer than the 128 characters of errorDescription: the library cuts it there.
    detail: `cyrilResult.positionChanges names participantCurrencyId 7, not the message key 8 ${'x'.repeat(80)}`,
    original: 'none (throws)',
    make: (detail) => Factory.createFSPIOPError(codes.INTERNAL_SERVER_ERROR, detail),
  },
  {
    name: 'UNSUPPORTED_ACTION',
    detail: 'action bogus',
    original: 'none (throws)',
    make: (detail) => Factory.createFSPIOPError(codes.NOT_IMPLEMENTED, detail),
  },
];

// central-ledger's repository config/default.json (true, false), the helm chart's (false, true), the other two,
// and ERROR_HANDLING absent from a deployment's file: toApiErrorObject(undefined), the library's own defaults.
const settings = [
  { includeCauseExtension: true, truncateExtensions: false },
  { includeCauseExtension: false, truncateExtensions: true },
  { includeCauseExtension: true, truncateExtensions: true },
  { includeCauseExtension: false, truncateExtensions: false },
  undefined,
];

const recorded = {
  provenance: {
    what: "errorInformation as central-ledger's error library writes it, by running it (scripts/record-original-errors.cjs)",
    library: `@mojaloop/central-services-error-handling ${version(library)}`,
    installedWith: `@mojaloop/central-ledger ${version(join(modules, 'central-ledger'))}`,
    node: process.version,
    recordedAt: new Date().toISOString(),
  },
  cases: cases.map(({ name, detail, original, make }) => ({
    name,
    ...(detail === undefined ? {} : { detail }),
    original,
    outputs: settings.map((errorHandling) => ({
      errorHandling: errorHandling ?? null,
      payload: make(detail).toApiErrorObject(errorHandling),
    })),
  })),
};
process.stdout.write(`${JSON.stringify(recorded, null, 2)}\n`);
