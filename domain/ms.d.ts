/**
 * The part of `ms` (the duration parser the Temporal SDK uses) the engine calls. Its own typings are
 * not reachable through its `exports` map under NodeNext resolution, hence this declaration.
 */
declare module 'ms' {
  /** Milliseconds of a duration such as `'5 minutes'` or `'10s'`; NaN or undefined when unreadable. */
  export default function ms(value: string): number | undefined;
}
