#!/usr/bin/env node
// Writes .env.example from the "Environment variables" table of docs/operations.md (the one place
// each variable is described), so the two cannot drift: `npm run env:example`. A unit test
// (test/config/env-example.unit.test.ts) fails when the file is stale or a variable of config/env.ts
// is missing from the table.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** The page whose "Environment variables" section documents every variable. */
const docFile = path.join(root, 'docs', 'operations.md');

/** The table rows of the page's "Environment variables" section: names, default, meaning. */
function envTable(doc) {
  const section = doc.split('\n## Environment variables\n')[1]?.split('\n## ')[0];
  if (!section) throw new Error(`${path.relative(root, docFile)} has no "## Environment variables" section`);
  const rows = [];
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (cells.length !== 3 || cells[0] === 'variable' || /^-+$/.test(cells[0])) continue;
    const names = [...cells[0].matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]);
    if (names.length > 0) rows.push({ names, defaultText: cells[1], meaning: cells[2] });
  }
  return rows;
}

/** Markdown to one plain comment line: no backticks, links as their text. */
const plain = (text) => text.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '').replace(/\\\|/g, '|');

/** A literal default goes after `=`; "—", "empty" or a default that names another value stays blank. */
function literal(defaultText) {
  const m = /^`([^`]*)`$/.exec(defaultText);
  if (!m || /\$|\s/.test(m[1]) || /^[A-Z_]+$/.test(m[1])) return '';
  return m[1];
}

function render(doc) {
  const out = [
    '# Every environment variable Hosted Agents reads, with its default (generated from the',
    '# "Environment variables" table of docs/operations.md by `npm run env:example`; do not edit by hand).',
    '# Everything is optional for `npm start`; `hosted-agents api|worker|migrate` need DATABASE_URL,',
    '# TEMPORAL_ADDRESS and SECRETS_KEY. Uncomment what you change.',
  ];
  for (const row of envTable(doc)) {
    out.push('', `# ${plain(row.meaning)}${literal(row.defaultText) === '' && row.defaultText !== '—' ? ` (default: ${plain(row.defaultText)})` : ''}`);
    for (const name of row.names) out.push(`# ${name}=${literal(row.defaultText)}`);
  }
  return `${out.join('\n')}\n`;
}

module.exports = { docFile, envTable, render };

if (require.main === module) {
  const file = path.join(root, '.env.example');
  fs.writeFileSync(file, render(fs.readFileSync(docFile, 'utf8')));
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
