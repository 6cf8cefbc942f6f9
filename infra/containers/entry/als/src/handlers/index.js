// account-lookup-service's handlers entry point (`node src/handlers/index.js handlers --timeout`): the same
// command line reaches our ALS, which then runs the timeout handler alone.
import '../../dist/als.js';
