// Thread priority for runaway evaluations (docs/adr/0004). A worker held by one long evaluation spins a core; on a
// busy host it takes CPU time from the threads serving every other request. The main thread lowers such a worker's
// scheduling priority by 10 nice steps (about a tenth of the other threads' share when they compete, the full core
// when nothing else runs), and the worker raises it back when that evaluation is over. Both are relative to the
// process's own nice value (a unit's `Nice=`): a worker never runs above the priority the operator gave the daemon.
// Raising a priority needs CAP_SYS_NICE or an RLIMIT_NICE that allows it (Linux); without that a lowered worker could
// never come back, so the priority is then left alone. Linux only: a thread's id comes from /proc/thread-self.
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The process's nice value (its main thread's, from which every worker thread inherits it); 0 where unreadable. */
export function processNice(): number {
  try {
    return getPriority(process.pid);
  } catch {
    return 0;
  }
}

/** The nice value of a worker held by a long evaluation, in a process running at `base`. */
export function heldNiceFor(base: number): number {
  return Math.min(19, base + 10);
}

/** This thread's kernel thread id, 0 where there is none to read (not Linux). */
export function currentThreadId(): number {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : 0;
  } catch {
    return 0;
  }
}

/**
 * Whether this process may raise a thread's priority back to `base` (CAP_SYS_NICE, or an RLIMIT_NICE of 20 − base or
 * more: setpriority(2)'s ceiling is 20 − the limit).
 */
export function mayRestorePriority(base = processNice()): boolean {
  try {
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    // CAP_SYS_NICE is capability 23
    if (caps !== undefined && (BigInt(`0x${caps}`) >> 23n) & 1n) return true;
    const limit = /^Max nice priority\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return limit === 'unlimited' || (limit !== undefined && Number(limit) >= 20 - base);
  } catch {
    return false;
  }
}

/** Sets thread `tid`'s nice value; false when the kernel refused. */
export function setThreadNice(tid: number, nice: number): boolean {
  try {
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
