import { frontSuite } from './front-suite.js';

frontSuite('fspiop');
