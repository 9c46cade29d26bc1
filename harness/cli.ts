import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { ChildProc } from './child';

export const repoRoot = path.resolve(__dirname, '..');
export const cliEntry = path.join(repoRoot, 'bin', 'hosted-agents.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `hosted-agents ARGS` as a user would, with exactly the given environment (plus PATH/HOME). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hosted-agents ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A `hosted-agents` process of ours with its output (the last 200 kB), so a test or a bench can kill and inspect it. */
export type CliProcess = ChildProcessByStdio<null, Readable, Readable> & { output: () => string };

/** `hosted-agents <command>` with exactly `env` (plus PATH/HOME); `nodeArgs` go before the script (e.g. `--cpu-prof`). */
export function cliProcess(command: string, env: Record<string, string>, nodeArgs: readonly string[] = []): ChildProc {
  return new ChildProc(`hosted-agents ${command}`, process.execPath, [...nodeArgs, cliEntry, command], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    tailChars: 200_000,
  });
}

/** The Node child process of a `cliProcess`, with its output. */
export function asCliProcess(proc: ChildProc): CliProcess {
  return Object.assign(proc.child as ChildProcessByStdio<null, Readable, Readable>, { output: () => proc.output });
}

/** Spawns `hosted-agents <command>` (as cliProcess) and answers its child process. */
export function spawnCli(command: string, env: Record<string, string>, nodeArgs: readonly string[] = []): CliProcess {
  return asCliProcess(cliProcess(command, env, nodeArgs));
}
