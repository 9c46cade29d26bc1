import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Docs that say a feature is missing drift the moment it is built (issue 52: the README said eval
 * runs were "not built yet" while their routes served). Two guards:
 *
 * - every sentence of the README, sdk/README.md and docs/ that says something is not built, not
 *   yet available or upcoming must be in `stillTrue` below, with the reason it is still true —
 *   so the commit that builds the feature meets the sentence;
 * - such a sentence may not name a route (`GET /v1/…`) that the route table (api/routes/) declares.
 */
const root = path.resolve(__dirname, '../..');
const pages = ['README.md', 'sdk/README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

const missingFeature =
  /\b(?:not (?:built|implemented|available|supported) yet|not yet (?:built|implemented|available|supported|exist)|(?:is|are) not built|isn't built|aren't built|coming soon|upcoming|planned for a later|in a later (?:release|version))\b/i;

/** Sentences that say something is missing and still are true: page → [a part of the sentence, why]. */
const stillTrue: Record<string, [string, string][]> = {};

/** Sentences of a markdown page (code blocks left out), roughly: split at ". " and blank lines. */
function sentences(markdown: string): string[] {
  let fenced = false;
  const prose = markdown
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) fenced = !fenced;
      return !fenced && !line.startsWith('```');
    })
    .join('\n');
  return prose.split(/(?<=[.!?])\s+|\n\s*\n/).map((s) => s.replace(/\s+/g, ' ').trim());
}

describe('docs do not call built features missing', () => {
  const found = pages.flatMap((page) =>
    sentences(fs.readFileSync(path.join(root, page), 'utf8'))
      .filter((s) => missingFeature.test(s))
      .map((sentence) => ({ page, sentence })),
  );

  it('every sentence saying a feature is missing is listed with why it is still true', () => {
    const unlisted = found.filter(({ page, sentence }) => !(stillTrue[page] ?? []).some(([part]) => sentence.includes(part)));
    assert.deepEqual(unlisted, [], 'a feature said to be missing: remove the sentence if it is built, or list it in stillTrue with the reason');
  });

  it('no such sentence names a route the API serves', () => {
    const routesDir = path.join(root, 'api', 'routes');
    const declared = fs
      .readdirSync(routesDir)
      .flatMap((f) => [...fs.readFileSync(path.join(routesDir, f), 'utf8').matchAll(/path: '(\/v1\/[^']*)'/g)].map((m) => m[1]!.replace(/:[A-Za-z]+/g, '')));
    assert.ok(declared.length > 50, `read ${declared.length} routes from api/routes/`);
    const served = (route: string) => declared.some((p) => route.replace(/\{[^}]+\}|:[A-Za-z]+/g, '') === p);
    const named = found.flatMap(({ page, sentence }) => [...sentence.matchAll(/`(?:GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`\s]*)`/g)].map((m) => ({ page, route: m[1]! })));
    assert.deepEqual(named.filter(({ route }) => served(route)), []);
  });

  it('the guard sees a sentence of the kind that drifted', () => {
    assert.ok(missingFeature.test('Eval runs are not built yet.'));
    assert.ok(missingFeature.test('A signed-identity flow is not built.'));
    assert.ok(!missingFeature.test('Eval runs are built on the turn workflow.'));
  });
});
