/**
 * The data dir's state file: a JSON snapshot, written atomically (temporary file, then rename) a
 * short while after changes and once more on shutdown, so a crash loses at most the last moments and
 * never leaves a half-written file.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot } from './model.js';

export const STATE_FILE = 'state.json';

export async function readSnapshot(dataDir: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Snapshot;
  if (parsed.version !== 1) throw new Error(`${STATE_FILE}: unsupported snapshot version`);
  return parsed;
}

export class SnapshotWriter {
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;

  constructor(
    private readonly dataDir: string,
    private readonly snapshot: () => Snapshot,
    private readonly debounceMs = 250,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Marks the state changed; one write follows after the debounce interval. */
  schedule(): void {
    this.#dirty = true;
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch(this.onError);
    }, this.debounceMs);
    this.#timer.unref();
  }

  /** Writes now if anything changed since the last write; writes never overlap. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      await writeAtomically(join(this.dataDir, STATE_FILE), JSON.stringify(this.snapshot()));
    });
    return this.#writing;
  }
}

export async function writeAtomically(path: string, content: string, mode = 0o644): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
