import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The generated client types are openapi-typescript's output, checked against it by a test.
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      'test-results/',
      'playwright-report/',
      'docs/examples/client/svc-api.d.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
