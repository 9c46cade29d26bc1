import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { errorCodeTable } from '../../api/openapi/openapi-text';
import { errorCodes } from '../../domain/errors';
import { turnErrorCodes } from '../../domain/turn-events';

/**
 * The error codes have one text: `domain/errors.ts` (and the turn's codes in `domain/turn-events.ts`)
 * feed both `/docs` (the Errors section, the Error schema) and docs/http-api.md "Error codes". The
 * page holds the generated table verbatim; when a code or its meaning changes, paste the table this
 * test prints.
 */
describe('docs/http-api.md "Error codes" is the table of domain/errors.ts', () => {
  const page = fs.readFileSync(path.resolve(__dirname, '../../docs/http-api.md'), 'utf8');

  it('holds the generated table, row for row', () => {
    const table = errorCodeTable();
    assert.ok(page.includes(`\n${table}\n`), `docs/http-api.md must hold this table under "## Error codes":\n\n${table}\n`);
  });

  it('lists every code once, with its meaning', () => {
    const codes = [...errorCodeTable().matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(codes, [...Object.keys(errorCodes), ...Object.keys(turnErrorCodes)]);
    for (const [code, { doc }] of Object.entries(errorCodes)) {
      assert.ok(doc.length > 10 && !doc.includes('|') && !doc.includes('\n'), `${code}: a one-line meaning without "|"`);
    }
  });
});
