/**
 * The engine's parts as real operating-system processes, for the fault-injection suite and the
 * benchmark: the Temporal CLI dev server on a database file, the simulator on a data dir, and worker
 * processes configured through their environment (runtime/config.ts). Each can be stopped (SIGTERM),
 * killed (SIGKILL) and started again on the same port, file or queue. Loopback addresses only.
 *
 * Each process is started in a process group of its own, and TypeScript entry points run in `node`
 * itself (`node --import tsx file.ts`), not under the tsx CLI, which would run them in a child
 * process of its own: a signal reaches the process that does the work, and a stop signals the whole
 * group. A stop then checks that the process and everything it had started are gone (see
 * `StopReport`). Groups still alive when this process exits, or dies of SIGINT/SIGTERM/SIGHUP, are
 * killed.
 */
export * from './processes/proc.js';
export * from './processes/child.js';
export * from './processes/engine.js';
