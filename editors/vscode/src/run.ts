// Process runner for the ctx binary. No `vscode` import: the tests run it
// under plain Node against a real ctx.

import { spawn } from "node:child_process";

/** RunOptions describes one ctx process. */
export interface RunOptions {
  /** bin is the executable: a name looked up on PATH or a path. */
  bin: string;
  /** args are passed as an array, never through a shell. */
  args: string[];
  /** cwd is the directory the process starts in (the workspace folder). */
  cwd: string;
  /** env replaces the environment when set; the default is this process's. */
  env?: NodeJS.ProcessEnv;
  /** timeoutMs kills the process after this many milliseconds; 0 or absent: no limit. */
  timeoutMs?: number;
  /** signal kills the process when it aborts. */
  signal?: AbortSignal;
  /** maxStdoutBytes kills the process when stdout passes it (default 32 MiB). */
  maxStdoutBytes?: number;
}

/** RunResult is how a ctx process ended and what it printed. */
export interface RunResult {
  /** code is the exit code, or null when a signal ended the process. */
  code: number | null;
  /** signal is the signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  /** stderr is the last [MAX_STDERR_BYTES] bytes of standard error. */
  stderr: string;
  /** pid is the process id, for tests that check it is gone. */
  pid?: number;
  /** timedOut: the timeout killed it. */
  timedOut: boolean;
  /** canceled: the abort signal killed it. */
  canceled: boolean;
  /** overflow: stdout passed maxStdoutBytes and the process was killed. */
  overflow: boolean;
}

/** SpawnError is a process that could not be started at all (no such file, not executable). */
export class SpawnError extends Error {
  constructor(
    message: string,
    /** errno is Node's code: ENOENT, EACCES, ... */
    readonly errno: string | undefined,
  ) {
    super(message);
    this.name = "SpawnError";
  }
}

/** MAX_STDERR_BYTES bounds the kept tail of standard error. */
export const MAX_STDERR_BYTES = 64 * 1024;
const DEFAULT_MAX_STDOUT = 32 * 1024 * 1024;
/** KILL_GRACE_MS is how long a process has after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;

/**
 * run starts opts.bin with opts.args and resolves when it has exited and its
 * output is closed. It rejects only with a [SpawnError] (the process never
 * started); timeouts, cancellation and overflow resolve with the flags set.
 */
export function run(opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, canceled: true, overflow: false });
      return;
    }
    const child = spawn(opts.bin, opts.args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      shell: false,
      windowsHide: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const maxOut = opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = Buffer.alloc(0);
    let timedOut = false;
    let canceled = false;
    let overflow = false;
    let killTimer: NodeJS.Timeout | undefined;
    let spawnFailed = false;

    const kill = () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      child.kill("SIGTERM");
      killTimer ??= setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL");
        }
      }, KILL_GRACE_MS);
    };
    const timer =
      opts.timeoutMs && opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, opts.timeoutMs)
        : undefined;
    const onAbort = () => {
      canceled = true;
      kill();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (b: Buffer) => {
      if (overflow) {
        return;
      }
      outBytes += b.length;
      if (outBytes > maxOut) {
        overflow = true;
        kill();
        return;
      }
      out.push(b);
    });
    child.stderr.on("data", (b: Buffer) => {
      errTail = Buffer.concat([errTail, b]);
      if (errTail.length > MAX_STDERR_BYTES) {
        errTail = errTail.subarray(errTail.length - MAX_STDERR_BYTES);
      }
    });
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (err: NodeJS.ErrnoException) => {
      // Only a failed spawn reaches here in practice (kill errors are
      // ignored by Node); 'close' may not follow it.
      if (child.pid === undefined) {
        spawnFailed = true;
        cleanup();
        reject(new SpawnError(`starting ${opts.bin}: ${err.message}`, err.code));
      }
    });
    child.on("close", (code, signal) => {
      cleanup();
      if (spawnFailed) {
        return;
      }
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: errTail.toString("utf8"),
        pid: child.pid,
        timedOut,
        canceled,
        overflow,
      });
    });
  });
}
