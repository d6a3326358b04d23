// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'cdk.out/', 'coverage/', '.tmp/', '.node24/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The sandbox emulates what the product talks to: it may know the product's model and deploy
    // contract (@ec2-node-reconciler/model, by name), never the code under test (which reaches it
    // through the injected Operator). test/workspace-boundaries.test.ts resolves every relative import.
    files: ['packages/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(lib|cli|infra|functions|bin|scripts|packages)/',
              message:
                "the sandbox depends on the product's model and contract only, by name (@ec2-node-reconciler/model)",
            },
          ],
        },
      ],
    },
  },
  {
    // The model and the deploy contract are what the product and the sandbox share: they know neither.
    files: ['packages/model/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(lib|cli|infra|functions|bin|scripts|test|packages)/',
              message: '@ec2-node-reconciler/model depends on nothing of the product',
            },
            {
              regex: '^@ec2-node-reconciler/',
              message: '@ec2-node-reconciler/model depends on no other workspace package',
            },
          ],
        },
      ],
    },
  },
  {
    // The functions' library reaches nothing above it: not its deployment code (what both need is in
    // packages/model/src/contract), not the handlers, not the operator's command line (cli/), not the sandbox.
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+infra/',
              message: 'lib never imports infra: put what both need in @ec2-node-reconciler/model/contract',
            },
            { regex: '^(\\.\\./)+functions/', message: 'lib never imports the handlers (functions/)' },
            { regex: '^(\\.\\./)+cli/', message: 'lib never imports the command line: what both need stays in lib' },
            { regex: '^@ec2-node-reconciler/sandbox', message: 'lib never imports the sandbox (cli/ may)' },
          ],
        },
      ],
    },
  },
  {
    // What is deployed (the handlers, the CDK app) carries none of the operator's command line.
    files: ['functions/**/*.ts', 'infra/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+cli/', message: 'functions and infra never import the command line (cli/)' },
            { regex: '^@ec2-node-reconciler/sandbox', message: 'functions and infra never import the sandbox' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
);
