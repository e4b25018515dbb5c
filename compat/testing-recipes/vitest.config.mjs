// The README's krill/testing recipe, run as a user's suite would be (compat/testing-recipes/recipes.test.ts
// starts it): krill/testing resolves through the package's own exports, to the built dist/testing.mjs.
export default {
  test: {
    globalSetup: ['krill/testing'],
    include: ['compat/testing-recipes/*.recipe.ts'],
    testTimeout: 60_000,
  },
};
