// central-ledger's handlers entry point as Mojaloop's charts run it (`node src/handlers/index.js handler
// --positionbatch`, `--position`): the same command line reaches our position handler.
import '../../dist/position.js';
