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
  // Browser code takes signals from widgets/lib/signals.ts, which guards their evaluation against a
  // host page's polluted Object.prototype (widgets/lib/descriptor-guard.ts).
  {
    files: ['widgets/**/*.{ts,tsx}', 'console/**/*.{ts,tsx}'],
    ignores: ['widgets/lib/signals.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        ...['@preact/signals', '@preact/signals-core'].map((name) => ({
          name,
          message: 'Import signals from widgets/lib/signals.ts (Object.prototype pollution guard).',
          allowTypeImports: true,
        })),
      ],
    },
  },
);
