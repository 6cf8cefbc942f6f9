// account-lookup-service's entry point as Mojaloop's charts run it (`node src/index.js server --api`,
// `server --admin`): the same command line reaches our ALS, which serves what it names.
import '../dist/als.js';
