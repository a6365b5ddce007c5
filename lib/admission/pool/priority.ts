// Thread priority for runaway evaluations (docs/adr/0004). A worker held by one long evaluation spins a core; on a
// busy host it takes CPU time from the threads serving every other request. The main thread lowers such a worker's
// scheduling priority (nice 10: about a tenth of a nice-0 thread's share when they compete, the full core when
// nothing else runs), and the worker raises it back when that evaluation is over. Raising a priority needs
// CAP_SYS_NICE or an RLIMIT_NICE that allows it (Linux); without that a lowered worker could never come back, so
// the priority is then left alone. Linux only: a thread's id comes from /proc/thread-self.
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value of a worker held by a long evaluation. */
export const heldNice = 10;

/** This thread's kernel thread id, 0 where there is none to read (not Linux). */
export function currentThreadId(): number {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : 0;
  } catch {
    return 0;
  }
}

/** Whether this process may raise a thread's priority back to nice 0 (CAP_SYS_NICE, or RLIMIT_NICE of 20 or more). */
export function mayRestorePriority(): boolean {
  try {
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    // CAP_SYS_NICE is capability 23
    if (caps !== undefined && (BigInt(`0x${caps}`) >> 23n) & 1n) return true;
    const limit = /^Max nice priority\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return limit === 'unlimited' || (limit !== undefined && Number(limit) >= 20);
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
