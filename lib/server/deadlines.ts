// The listener's request deadlines on one timer. A Node timer per request costs an object, an async id and, as each
// request's remaining time differs by a millisecond or so, often a new timer list in Node's priority queue; here a
// request's deadline is an entry in an array kept in deadline order (the apiserver sends the same timeout on every
// call, so entries nearly always go at the end) and one timer is armed for the earliest. A request answered in
// time drops its entry's callback at once, so nothing it holds outlives it.

interface Entry {
  readonly at: number;
  fire: (() => void) | undefined;
}

/** A pending deadline; cancel() when the request was answered in time. */
export interface Deadline {
  cancel(): void;
}

export class Deadlines {
  #queue: Entry[] = [];
  /** entries before this index are gone */
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #armedAt = Infinity;

  /** Calls `fire` at `at` (epoch ms) unless cancelled first. */
  add(at: number, fire: () => void): Deadline {
    const entry: Entry = { at, fire };
    const q = this.#queue;
    if (q.length === this.#head || q[q.length - 1]!.at <= at) q.push(entry);
    else {
      // earlier than the last one (a shorter ?timeout=): binary search for its place
      let lo = this.#head;
      let hi = q.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (q[mid]!.at <= at) lo = mid + 1;
        else hi = mid;
      }
      q.splice(lo, 0, entry);
    }
    if (at < this.#armedAt) this.#arm(at);
    else if (q.length === this.#head + 1) this.#timer?.ref();
    return { cancel: () => this.#cancel(entry) };
  }

  #cancel(entry: Entry): void {
    entry.fire = undefined;
    // requests mostly finish in the order they came: drop the finished ones at the front
    const q = this.#queue;
    while (this.#head < q.length && q[this.#head]!.fire === undefined) this.#head++;
    this.#compact();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - Date.now()));
  }

  #expire(): void {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    const now = Date.now();
    const q = this.#queue;
    while (this.#head < q.length && q[this.#head]!.at <= now) {
      const entry = q[this.#head++]!;
      const fire = entry.fire;
      entry.fire = undefined;
      fire?.();
    }
    while (this.#head < q.length && q[this.#head]!.fire === undefined) this.#head++;
    this.#compact();
    // #compact may have replaced the array
    const rest = this.#queue;
    if (this.#head < rest.length) this.#arm(rest[this.#head]!.at);
  }

  /**
   * Releases the array's front once most of it is gone (an empty queue at once). The timer stays armed, unref'd,
   * when the queue empties: under load it empties and refills many times a second, and re-arming cost a Node timer
   * each time; armed early, it finds nothing due when it fires and is armed again for the earliest entry then.
   */
  #compact(): void {
    const q = this.#queue;
    if (this.#head === q.length) {
      this.#queue = [];
      this.#head = 0;
      this.#timer?.unref();
    } else if (this.#head > 1024 && this.#head * 2 > q.length) {
      this.#queue = q.slice(this.#head);
      this.#head = 0;
    }
  }
}
