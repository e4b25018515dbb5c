// Lint: ESLint's and typescript-eslint's recommended rules over everything in the repository that is
// JavaScript or TypeScript; type-aware for the TypeScript (through tsconfig.check.json, which covers test/,
// compat/ and bench/ too). Formatting is Prettier's (.prettierrc.json), so no stylistic rules here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    files: ['**/*.ts', '**/*.cts'],
    languageOptions: { parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname } },
  },
  // CommonJS (.cts, .cjs): require is how it imports.
  { files: ['**/*.cts', '**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
