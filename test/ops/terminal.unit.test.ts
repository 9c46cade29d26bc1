import assert from 'node:assert/strict';
import { loadConfig } from '../../config/env';
import { startBanner, type BannerFacts } from '../../cli/banner';
import { loggerFor } from '../../cli/logging';
import { prettyLine } from '../../infra/pretty-log';

/** What a person reads at `npm start`'s terminal: the banner's model and next step, and the log lines' format. */
describe("npm start's terminal", () => {
  const facts: BannerFacts = {
    temporalAddress: '127.0.0.1:7233',
    embeddedDatabase: true,
    workspaceId: 'ws_1',
    workspaceCreated: true,
    apiKey: 'sk_test',
    credentialsPath: '/data/dev-credentials.json',
    quietLogs: true,
  };

  it('with no model key: names the offline model, how it calls a tool, and the variables for a real one', () => {
    const text = startBanner(loadConfig({}), facts).join('\n');
    assert.match(text, /^ {2}Model {8}local:offline$/m);
    assert.match(text, /\/tool <name> \{json\}/);
    assert.match(text, /OPENAI_API_KEY or ANTHROPIC_API_KEY/);
    assert.match(text, /^ {2}API docs {5}http:\/\/localhost:8080\/docs$/m);
    // On the SDK's default address the next step needs only the key.
    assert.match(text, /^ {2}SERVICE_API_KEY=sk_test npx tsx examples\/quick-start\.ts$/m);
    assert.match(text, /LOG_LEVEL=info shows every request/);
    assert.match(text, /^ {2}Tools {8}private addresses are blocked for HTTP tools, MCP servers and web\.fetch; OUTBOUND_ALLOW_PRIVATE=true allows them$/m);
  });

  it('the tools line names the ranges OUTBOUND_ALLOW_PRIVATE opens, and is gone when it opens them all', () => {
    const listed = startBanner(loadConfig({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8' }), facts).join('\n');
    assert.match(listed, /^ {2}Tools {8}private addresses \(but 127\.0\.0\.0\/8\) are blocked/m);
    assert.doesNotMatch(startBanner(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' }), facts).join('\n'), /Tools|OUTBOUND_ALLOW_PRIVATE/);
  });

  it('with a key: names both grades, no offline hint; elsewhere than :8080 the next step sets SERVICE_BASE_URL', () => {
    const text = startBanner(loadConfig({ OPENAI_API_KEY: 'sk-x', PORT: '9000' }), { ...facts, quietLogs: false }).join('\n');
    assert.match(text, /^ {2}Models {7}standard openai:gpt-4\.1-mini, premium openai:gpt-4\.1$/m);
    assert.doesNotMatch(text, /offline/);
    assert.doesNotMatch(text, /LOG_LEVEL/);
    assert.match(text, /SERVICE_API_KEY=sk_test SERVICE_BASE_URL=http:\/\/localhost:9000 npx tsx examples\/quick-start\.ts/);
  });

  it('logs: warnings as readable lines under start, every request as JSON for api and worker; LOG_* win', () => {
    const start = loggerFor(loadConfig({}), 'start');
    const service = loggerFor(loadConfig({}), 'service');
    assert.equal(start.level, 'warn');
    assert.equal(service.level, 'info');
    assert.equal(loggerFor(loadConfig({ LOG_LEVEL: 'debug' }), 'start').level, 'debug');
    assert.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), /LOG_FORMAT: json or pretty/);
  });

  it('a pretty line: time, level, message, the error, then the other fields; an error keeps its stack', () => {
    const time = new Date(2026, 0, 1, 12, 4, 5).getTime();
    const warn = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', name: 'hosted-agents', source: 'knex', msg: 'Connection Error' });
    assert.equal(prettyLine(warn), '12:04:05 WARN  Connection Error source=knex\n');
    const err = JSON.stringify({ level: 50, time, msg: 'turn failed', err: { message: 'boom', stack: 'Error: boom\n    at x' }, turnId: 'trn 1' });
    assert.equal(prettyLine(err), '12:04:05 ERROR turn failed — boom turnId="trn 1"\n    Error: boom\n        at x\n');
    assert.equal(prettyLine('not json'), 'not json\n');
  });
});
