// krill/testing/jest-setup: jest's globalSetup (a module whose default export it runs), the same setup as
// vitest's; krill/testing/jest-teardown closes the broker it started.
export { setup as default } from './testing.js';
