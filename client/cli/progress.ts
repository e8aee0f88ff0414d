/**
 * Progress for long commands, on stderr and only at a terminal with `-o text`: a bar for batches, a
 * spinner for waits. Anywhere else they write nothing, so pipes and JSON stay clean.
 */
import type { OutputFormat } from './output.js';

export interface Progress {
  tick(label: string, failed: boolean): void;
  stop(): void;
}

function atTerminal(format: OutputFormat): boolean {
  return format === 'text' && process.stderr.isTTY === true;
}

/** A bar of `total` steps: `applying [=====     ] 12/40, 1 failed  file.xml`. */
export async function progressBar(format: OutputFormat, what: string, total: number): Promise<Progress> {
  if (!atTerminal(format)) return { tick: () => undefined, stop: () => undefined };
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    { format: `${what} [{bar}] {value}/{total}, {failed} failed  {label}`, stream: process.stderr },
    Presets.shades_classic,
  );
  let failures = 0;
  bar.start(total, 0, { label: '', failed: 0 });
  return {
    tick(label, failed) {
      if (failed) failures++;
      bar.increment({ label, failed: failures });
    },
    stop: () => bar.stop(),
  };
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner with the elapsed time and `text()` (what is being waited for); `stop` clears its line. */
export function spinner(format: OutputFormat, text: () => string): { stop(): void } {
  if (!atTerminal(format)) return { stop: () => undefined };
  const began = Date.now();
  let frame = 0;
  const draw = () => {
    const elapsed = Math.round((Date.now() - began) / 1000);
    process.stderr.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text()} (${elapsed} s)`);
  };
  draw();
  const timer = setInterval(draw, 120);
  return {
    stop() {
      clearInterval(timer);
      process.stderr.write('\r\x1b[2K');
    },
  };
}
