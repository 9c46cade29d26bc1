import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Migrations run while the previous release still serves (docs/operations.md#upgrading), so their
 * `up` may only expand the schema. This reads each migration's `up` as text and names the contract
 * operations in it: a few regexes, not a parser, so it errs on the side of asking.
 */
const MIGRATIONS = join(__dirname, '../../db/migrations');

/** Operations that break the previous release's code wherever they appear in `up`. */
const CONTRACT_CALLS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\.dropColumns?\(/, 'dropColumn'],
  [/\.dropTable(IfExists)?\(/, 'dropTable'],
  [/\.renameColumn\(/, 'renameColumn'],
  [/\.renameTable\(/, 'renameTable'],
  [/\.dropNullable\(/, 'dropNullable (sets NOT NULL)'],
];

/** The same in raw SQL, matched case-insensitively inside `raw(...)` strings. */
const CONTRACT_SQL: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bdrop\s+column\b/i, 'raw drop column'],
  [/\bdrop\s+table\b/i, 'raw drop table'],
  [/\brename\s/i, 'raw rename'],
  [/\bset\s+not\s+null\b/i, 'raw set not null'],
];

/** The text of `up`: from its declaration to `down`'s (or the end). */
function upText(source: string): string {
  const start = source.indexOf('export async function up');
  if (start < 0) return '';
  const end = source.indexOf('export async function down', start);
  return source.slice(start, end < 0 ? undefined : end);
}

/** Code lines only: a comment that mentions an operation is not one. */
function withoutComments(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

/** The contract operations in a migration's `up`, as short descriptions (empty when it only expands). */
function contractOperations(source: string): string[] {
  const up = withoutComments(upText(source));
  const found: string[] = [];
  for (const [re, name] of CONTRACT_CALLS) if (re.test(up)) found.push(name);
  // Statements, each with the schema call it sits in: NOT NULL is new only in alterTable (or its alias table).
  let builder = '';
  for (const statement of up.split(/;|\n/)) {
    const call = /\.(createTable|createTableIfNotExists|alterTable|table)\(/.exec(statement);
    if (call) builder = call[1]!;
    const column = /\bt\.\w+\(\s*['"`](\w+)/.exec(statement)?.[1];
    if (!/\.notNullable\(\)/.test(statement)) continue;
    if (/\.alter\(/.test(statement)) found.push(`NOT NULL set on existing column ${column ?? '?'} (.notNullable().alter())`);
    else if ((builder === 'alterTable' || builder === 'table') && !/\.defaultTo\(/.test(statement))
      found.push(`NOT NULL column ${column ?? '?'} added to an existing table without .defaultTo()`);
  }
  for (const [, , sql] of up.matchAll(/\b(?:db|knex|trx)\.raw\(\s*(['"`])([\s\S]*?)\1/g)) {
    for (const [re, name] of CONTRACT_SQL) if (re.test(sql!)) found.push(`${name}: ${sql!.trim().slice(0, 80)}`);
  }
  return found;
}

/** A `// Contract: <why it is safe>` comment line in the migration's source. */
function hasContractNote(source: string): boolean {
  return /^[ \t]*(\/\/|\*)[ \t]*Contract:[ \t]*\S/m.test(source);
}

const RULE =
  'migrations only expand the schema while the previous release still runs (docs/operations.md#upgrading): ' +
  'new tables, nullable columns or columns with a default, new indexes. Move the contract step to a later release, ' +
  'or, when it is safe for the previous release’s code, say why in a comment line "// Contract: <why>" in the migration.';

describe('migrations only expand (online upgrades)', () => {
  const files = readdirSync(MIGRATIONS).filter((f) => /^\d{3}_.*\.ts$/.test(f)).sort();

  it('reads the migrations', () => {
    assert.ok(files.length >= 20, `migrations found: ${files.join(', ')}`);
    for (const f of files) assert.ok(upText(readFileSync(join(MIGRATIONS, f), 'utf8')), `${f} has no "export async function up"`);
  });

  it('every contract operation in an up migration carries a "// Contract:" reason', () => {
    const offending = files.flatMap((f) => {
      const source = readFileSync(join(MIGRATIONS, f), 'utf8');
      if (hasContractNote(source)) return [];
      return contractOperations(source).map((op) => `${f}: ${op}`);
    });
    if (offending.length) assert.fail(`contract operations in db/migrations:\n  ${offending.join('\n  ')}\n${RULE}`);
  });

  describe('the detector', () => {
    const migration = (up: string) => `export async function up(db: Knex): Promise<void> {\n${up}\n}\n\nexport async function down(db: Knex): Promise<void> {\n  await db.schema.dropTable('x');\n}\n`;

    for (const [label, up] of [
      ['a NOT NULL column without a default in alterTable', `await db.schema.alterTable('a', (t) => {\n  t.text('x').notNullable();\n});`],
      ['dropColumn', `await db.schema.alterTable('a', (t) => {\n  t.dropColumn('x');\n});`],
      ['dropColumns', `await db.schema.alterTable('a', (t) => t.dropColumns('x', 'y'));`],
      ['dropTable', `await db.schema.dropTable('a');`],
      ['dropTableIfExists', `await db.schema.dropTableIfExists('a');`],
      ['renameColumn', `await db.schema.alterTable('a', (t) => t.renameColumn('x', 'y'));`],
      ['renameTable', `await db.schema.renameTable('a', 'b');`],
      ['a column made NOT NULL by alter()', `await db.schema.alterTable('a', (t) => {\n  t.text('x').notNullable().alter();\n});`],
      ['a column made NOT NULL by alter(), with a default', `await db.schema.alterTable('a', (t) => {\n  t.text('x').notNullable().defaultTo('a').alter();\n});`],
      ['dropNullable', `await db.schema.alterTable('a', (t) => t.dropNullable('x'));`],
      ['raw drop column', `await db.raw('ALTER TABLE a DROP COLUMN x');`],
      ['raw drop table', 'await db.raw(`drop table if exists a`);'],
      ['raw rename', `await knex.raw("alter table a rename column x to y");`],
      ['raw set not null', `await db.raw(\`alter table a\n  alter column x set not null\`);`],
    ] as const) {
      it(`flags ${label}`, () => assert.notDeepEqual(contractOperations(migration(up)), [], up));
    }

    for (const [label, up] of [
      ['a NOT NULL column with a default in alterTable', `await db.schema.alterTable('a', (t) => {\n  t.text('x').notNullable().defaultTo('a');\n});`],
      ['a NOT NULL column in createTable', `await db.schema.createTable('a', (t) => {\n  t.text('x').notNullable();\n});`],
      ['a nullable column and an index', `await db.schema.alterTable('a', (t) => {\n  t.text('x');\n  t.index(['x']);\n});`],
      ['loosening: dropPrimary, dropForeign, dropUnique, setNullable', `await db.schema.alterTable('a', (t) => {\n  t.dropPrimary();\n  t.dropForeign(['x']);\n  t.dropUnique(['y']);\n  t.setNullable('z');\n});`],
      ['raw drop index and drop constraint', `await db.raw('drop index if exists a_x');\nawait db.raw('alter table a drop constraint a_check');`],
      ['a drop in down only', `await db.schema.createTable('x', (t) => t.text('y'));`],
      ['an operation named in a comment', `// dropColumn('x') waits for the next release\nawait db.schema.createTable('x', (t) => t.text('y'));`],
    ] as const) {
      it(`passes ${label}`, () => assert.deepEqual(contractOperations(migration(up)), [], up));
    }

    it('a "// Contract:" line with a reason lets a flagged migration pass; an empty one does not', () => {
      assert.equal(hasContractNote(`// Contract: no code of the previous release reads x.\nexport async function up() {}`), true);
      assert.equal(hasContractNote(` * Contract: a trigger (021) fills it.`), true);
      assert.equal(hasContractNote(`// Contract:\nexport async function up() {}`), false);
      assert.equal(hasContractNote(`export async function up() {}`), false);
    });
  });
});
