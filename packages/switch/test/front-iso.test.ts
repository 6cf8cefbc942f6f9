import { frontSuite } from './front-suite.js';

// ml-api-adapter with API_TYPE=iso20022: the FSPs send pacs.008, pacs.009 and pacs.002 and receive them back.
frontSuite('iso20022');
