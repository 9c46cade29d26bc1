import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A child process of a bench or a test (`hosted-agents api`, `worker`, admin verbs, scripts): its
 * output is kept (a bounded tail, `tailChars`, for error messages and assertions) and can be
 * waited on line by line; `stop` sends SIGTERM and SIGKILLs after a grace period.
 */
export class ChildProc {
  readonly child: ChildProcess;
  private tail = '';
  private stdout = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    opts: { cwd: string; env: NodeJS.ProcessEnv; keepStdout?: boolean; tailChars?: number },
  ) {
    const tailChars = opts.tailChars ?? 20_000;
    this.child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-tailChars);
      for (const wake of this.waiters) wake();
    };
    this.child.stdout?.on('data', (chunk: Buffer) => {
      if (opts.keepStdout) this.stdout += chunk.toString('utf8');
      take(chunk);
    });
    this.child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const wake of this.waiters) wake();
        resolve();
      });
      this.child.once('error', (err) => {
        this.tail += `\nspawn error: ${err.message}`;
        this.exit = { code: -1, signal: null };
        for (const wake of this.waiters) wake();
        resolve();
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name}: no pid (did it start?)`);
    return this.child.pid;
  }

  get output(): string {
    return this.tail;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Resolves once the output matches `pattern`; rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.name}: no ${String(pattern)} within ${timeoutMs} ms; output:\n${this.tail}`));
      }, timeoutMs);
      const check = () => {
        if (pattern.test(this.tail)) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        } else if (this.exit) {
          clearTimeout(timer);
          this.waiters.delete(check);
          reject(new Error(`${this.name} exited (${this.exit.code ?? this.exit.signal}) before ${String(pattern)}; output:\n${this.tail}`));
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for the process to end by itself; resolves with its stdout, rejects on a non-zero exit. */
  async result(timeoutMs: number): Promise<string> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
    if (this.exit?.code !== 0) throw new Error(`${this.name} failed (${this.exit?.code ?? this.exit?.signal}):\n${this.tail}`);
    return this.stdout;
  }

  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    this.child.kill('SIGTERM');
    await this.exited;
    clearTimeout(timer);
  }
}
