/**
 * PGlite is one PostgreSQL session. Its owner's own calls and the socket connections of other processes
 * (pglite-socket's PGLiteSocketHandler) take turns at it here, each turn lasting until the session is
 * idle again: a call of the owner runs to its end (a whole transaction), and a connection keeps the
 * session from its first protocol message until PostgreSQL reports it idle (ReadyForQuery 'I': after a
 * Sync or simple query outside a transaction). pglite-socket's own queue hands the session over between
 * any two messages outside a transaction (between a Parse and its Bind too) and knows nothing of the
 * owner's calls; this one replaces it, through the three methods the handler calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite } from '@electric-sql/pglite';
import { DatabaseError } from './errors.js';

type Holder = number | symbol;

interface Waiter {
  holder: Holder;
  resume: () => void;
  fail: (error: Error) => void;
}

/** ReadyForQuery ('Z', length 5) with the status byte 'I': no transaction open. */
const READY_IDLE = [0x5a, 0, 0, 0, 5, 0x49];
/** Sync ('S', length 4): ends whatever extended-protocol exchange a connection left unfinished. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

function endsIdle(tail: number[]): boolean {
  return tail.length === READY_IDLE.length && tail.every((byte, i) => byte === READY_IDLE[i]);
}

export class SessionQueue {
  private holder: Holder | undefined;
  private readonly waiting: Waiter[] = [];
  private readonly turn = new AsyncLocalStorage<SessionQueue>();

  constructor(private readonly pglite: PGlite) {}

  /** Runs `fn` (the owner's query or transaction) in a turn of its own. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.turn.getStore() === this) {
      // It would wait for the turn it is part of: for ever.
      throw new DatabaseError(
        'usage',
        "a query on the database inside one of its transactions: use the transaction's query",
      );
    }
    const me = Symbol('owner');
    await this.acquire(me);
    try {
      return await this.turn.run(this, fn);
    } finally {
      this.release(me);
    }
  }

  /** One protocol message of connection `handlerId`; the turn passes on once the session is idle. */
  async enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    await this.acquire(handlerId);
    let bytes = 0;
    let tail: number[] = [];
    await this.pglite.runExclusive(() =>
      this.pglite.execProtocolRawStream(message, {
        onRawData: (data) => {
          bytes += data.length;
          tail = [...tail, ...data.subarray(-READY_IDLE.length)].slice(-READY_IDLE.length);
          onData(data);
        },
      }),
    );
    if (endsIdle(tail)) this.release(handlerId);
    return bytes;
  }

  /** A connection went away: what it still waited for is dropped. */
  clearQueueForHandler(handlerId: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const waiter = this.waiting[i]!;
      if (waiter.holder !== handlerId) continue;
      this.waiting.splice(i, 1);
      waiter.fail(new Error('connection closed'));
    }
  }

  /** A connection went away during its turn: its unfinished exchange and transaction are undone. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.holder !== handlerId) return;
    try {
      await this.pglite.runExclusive(() => this.pglite.execProtocolRaw(SYNC));
      if (this.pglite.isInTransaction()) await this.pglite.exec('ROLLBACK');
    } finally {
      this.release(handlerId);
    }
  }

  private acquire(holder: Holder): Promise<void> {
    if (this.holder === holder) return Promise.resolve();
    if (this.holder === undefined) {
      this.holder = holder;
      return Promise.resolve();
    }
    return new Promise((resume, fail) => this.waiting.push({ holder, resume, fail }));
  }

  private release(holder: Holder): void {
    if (this.holder !== holder) return;
    const next = this.waiting.shift();
    this.holder = next?.holder;
    next?.resume();
  }
}
