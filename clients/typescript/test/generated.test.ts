/**
 * The committed generated code is what the pinned generator makes from the committed OpenAPI
 * document: it generates into a temporary folder, with this package's own configuration, and
 * compares every file. When this fails, run `make clients-typescript` and commit the result.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

import { PACKAGE_ROOT } from './support.js';

const GENERATED = join(PACKAGE_ROOT, 'src', 'generated');

async function filesUnder(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(relative(root, path), await readFile(path, 'utf8'));
    }
  }
  return files;
}

describe('generated client', () => {
  it('matches what the generator makes from openapi/openapi.json', async () => {
    const output = await mkdtemp(join(tmpdir(), 'planner-client-'));
    try {
      await promisify(execFile)(join(PACKAGE_ROOT, 'node_modules', '.bin', 'openapi-ts'), [], {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, PLANNER_CLIENT_OUTPUT: output },
      });
      const fresh = await filesUnder(output);
      const committed = await filesUnder(GENERATED);
      assert.ok(
        fresh.has('types.gen.ts') && fresh.has('sdk.gen.ts'),
        'the generator wrote nothing',
      );
      assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort());
      for (const [path, text] of fresh) {
        assert.ok(
          committed.get(path) === text,
          `src/generated/${path} drifted: run make clients-typescript`,
        );
      }
    } finally {
      await rm(output, { recursive: true, force: true });
    }
  });
});
