import type { Repositories } from '../../db/repositories';
import { normalisePath } from '../../domain/file-path';
import { detectMimeType, looksLikeText } from '../../domain/mime';
import { overQuotaMessage } from '../../domain/storage-quota';
import { capText } from './limits';
import { type BuiltInTool, str } from './builtin-types';
import { sandboxLimits } from './sandbox/limits';
import { runProgram } from './sandbox/sandbox';

const DESCRIPTION = [
  'Run a short JavaScript program (ES2023, no modules, no network) over files of the conversation drive, e.g. to total or filter a CSV.',
  'List the files it reads in `inputs`; the program reads them with readFile(path) (text), lists them as `inputs`,',
  'parses CSV with parseCSV(text) (rows as objects keyed by the header, numbers typed) and writes CSV with toCSV(rows),',
  'writes drive files with writeFile(path, text), prints with print(...) or console.log, and returns a JSON-serialisable value.',
  `Limits: ${sandboxLimits.cpuMs / 1000} s, ${sandboxLimits.memoryBytes / 1024 / 1024} MiB, ${sandboxLimits.inputFiles} inputs, ${sandboxLimits.outputFiles} written files.`,
].join(' ');

/**
 * `data.run` (step kind `data`): a program the model writes, run in the QuickJS sandbox
 * (activities/tools/sandbox/) over input files read from the drive first; the files it writes are
 * stored after it ends well, each a `file` event. The drive is the only thing it reaches.
 */
export function dataTool(repos: Repositories, quotaBytes?: number): BuiltInTool {
  return {
    name: 'data.run',
    definition: {
      name: 'data_run',
      description: DESCRIPTION,
      parameters: {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'The body of a function: use `return` for the result.' },
          inputs: { type: 'array', items: { type: 'string' }, description: 'Drive paths the program reads, e.g. ["sales.csv"].' },
        },
        required: ['code'],
        additionalProperties: false,
      },
    },
    describe: (args) => {
      const inputs = Array.isArray(args.inputs) ? args.inputs.filter((x): x is string => typeof x === 'string') : [];
      return { label: inputs.length > 0 ? `Analysing ${inputs.join(', ')}` : 'Running a data program', kind: 'data' };
    },
    async run(ctx, args, signal) {
      const code = str(args.code);
      if (code === undefined || code.trim() === '') return { ok: false, content: 'code must be a non-empty string' };
      if (code.length > sandboxLimits.codeChars) return { ok: false, content: `code is at most ${sandboxLimits.codeChars} characters` };
      const asked = args.inputs === undefined ? [] : args.inputs;
      if (!Array.isArray(asked) || !asked.every((x) => typeof x === 'string')) return { ok: false, content: 'inputs must be an array of paths' };
      if (asked.length > sandboxLimits.inputFiles) return { ok: false, content: `at most ${sandboxLimits.inputFiles} inputs` };
      const files: Record<string, string> = {};
      let bytes = 0;
      for (const raw of asked) {
        const p = normalisePath(raw);
        if (!p.ok) return { ok: false, content: `input ${raw} ${p.problem}` };
        const file = await repos.files.read({ space: ctx.drive, path: p.path });
        if (!file) return { ok: false, content: `no file ${p.path}` };
        if (!looksLikeText(file.content)) return { ok: false, content: `${p.path} is not text (${file.entry.mimeType})` };
        bytes += file.content.byteLength;
        if (bytes > sandboxLimits.inputBytes) return { ok: false, content: `inputs are at most ${sandboxLimits.inputBytes} bytes in all` };
        files[p.path] = file.content.toString('utf8');
      }

      const reply = await runProgram({ code, files }, signal);
      const printed = reply.printed ? `output:\n${reply.printed}` : '';
      if (!reply.ok) return { ok: false, content: capText(`${printed}the program failed: ${reply.error}`, sandboxLimits.outputChars) };

      const written: string[] = [];
      for (const [raw, content] of Object.entries(reply.writes)) {
        const p = normalisePath(raw);
        if (!p.ok) return { ok: false, content: `writeFile(${JSON.stringify(raw)}): the path ${p.problem}; nothing was written` };
        const body = Buffer.from(content, 'utf8');
        const r = await repos.files.put({
          workspaceId: ctx.workspaceId,
          space: ctx.drive,
          path: p.path,
          content: body,
          mimeType: detectMimeType(p.path, body),
          ...(quotaBytes !== undefined ? { quotaBytes } : {}),
        });
        if ('conflict' in r) return { ok: false, content: `writeFile(${JSON.stringify(p.path)}): ${r.conflict}` };
        if ('overQuota' in r) return { ok: false, content: overQuotaMessage(r.overQuota) };
        written.push(p.path);
      }
      const result = reply.result === undefined ? '' : `result: ${reply.result}\n`;
      const wrote = written.length > 0 ? `wrote: ${written.join(', ')}\n` : '';
      return { ok: true, content: capText(`${result}${wrote}${printed}`.trimEnd() || 'the program returned nothing', sandboxLimits.outputChars), files: written };
    },
  };
}
