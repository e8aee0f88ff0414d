/** Runs a command to its end, for provisioning steps (builds, initdb, schema tools). */
import { spawn } from 'node:child_process';

export interface RunCommandOptions {
  cwd?: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Run as this user (when this process may: root). */
  user?: { uid: number; gid: number };
  /** Written to the command's standard input (then closed). */
  input?: string;
  /** The error to reject with, from a message that holds the end of the command's output. */
  fail?: (message: string) => Error;
}

/** Resolves with the last 8 kB of the command's output; rejects when it exits non-zero. */
export function runCommand(command: string, args: string[], options: RunCommandOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...options.user,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve(output);
      const message = `${command} ${args.join(' ')} exited with ${code}:\n${output}`;
      reject(options.fail ? options.fail(message) : new Error(message));
    });
    child.stdin.end(options.input ?? '');
  });
}
