// krill/testing/jest-teardown: jest's globalTeardown, closing the broker krill/testing/jest-setup started.
export { teardown as default } from './testing.js';
