/**
 * Protobuf `Duration`s (`{ seconds, nanos }`, as the Temporal API carries retentions) to and from
 * milliseconds, through public packages only. Durations written as text (`'30d'`) go through
 * `durationMs` of domain/durations.ts first.
 */
import proto from '@temporalio/proto';

type ProtoDuration = proto.google.protobuf.IDuration;

/** Milliseconds of `duration`, whole (sub-millisecond nanos dropped). */
export function protoDurationMs(duration: ProtoDuration | null | undefined): number {
  if (duration === undefined || duration === null) throw new TypeError(`expected a duration, got ${duration}`);
  const { seconds, nanos } = duration;
  const wholeSeconds = typeof seconds === 'number' ? seconds : (seconds?.toNumber() ?? 0);
  return wholeSeconds * 1000 + Math.floor((nanos ?? 0) / 1_000_000);
}

/** `ms` milliseconds as a protobuf Duration. */
export function protoDuration(ms: number): ProtoDuration {
  if (!Number.isFinite(ms)) throw new TypeError(`expected a number of milliseconds, got ${ms}`);
  return proto.google.protobuf.Duration.fromObject({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 });
}
