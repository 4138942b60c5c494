// The generated part of the client: types and one function per operation, from the committed
// OpenAPI document. `npm run generate` (or `make clients-typescript` at the root) rewrites
// src/generated/; the drift test generates into a temporary folder named by
// PLANNER_CLIENT_OUTPUT and compares.
import { defineConfig } from '@hey-api/openapi-ts';

export default defineConfig({
  input: '../../openapi/openapi.json',
  output: {
    path: process.env.PLANNER_CLIENT_OUTPUT ?? 'src/generated',
    clean: true,
    // Node's ES modules need the extension on every relative import.
    module: { extension: '.js' },
    header: ({ defaultValue }) => [
      ...defaultValue,
      '// Generated from openapi/openapi.json by `make clients-typescript`; never edit by hand.',
    ],
  },
  plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
  logs: { level: 'warn' },
});
