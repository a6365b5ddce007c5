// RE2 regular expressions for `matches`, `find` and `findAll`, as cel-go and Kubernetes use Go's regexp (RE2
// syntax, linear-time matching, so no catastrophic backtracking): compiled with re2js and kept in a small LRU
// cache keyed by pattern, so that a policy's constant pattern is compiled once.

import { RE2JS } from 're2js';
import { celError } from './values.js';

/** Compiled patterns kept; the least recently used beyond this are dropped. */
export const REGEX_CACHE_LIMIT = 512;

interface Entry {
  readonly re: RE2JS;
  /** clock value of the last use */
  used: number;
}

const cache = new Map<string, Entry>();
let clock = 0;

/** The compiled pattern (cached); throws a CEL error for invalid RE2 syntax. */
export function compileRegex(pattern: string): RE2JS {
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    hit.used = ++clock;
    return hit.re;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw celError(reason.startsWith('error parsing regexp') ? reason : `error parsing regexp: ${reason}`);
  }
  if (cache.size >= REGEX_CACHE_LIMIT) {
    // Drop the least recently used pattern (a scan, on misses only).
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [key, entry] of cache) {
      if (entry.used < oldestUse) {
        oldest = key;
        oldestUse = entry.used;
      }
    }
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(pattern, { re, used: ++clock });
  return re;
}

/** `s.matches(re)`: whether the pattern matches any part of s (unanchored, as RE2's PartialMatch). */
export function matches(s: string, pattern: string): boolean {
  return compileRegex(pattern).test(s);
}

/** `s.find(re)`: the leftmost match, or '' (Go's FindString). */
export function find(s: string, pattern: string | RE2JS): string {
  const m = (typeof pattern === 'string' ? compileRegex(pattern) : pattern).matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

/** `s.findAll(re, n)`: successive non-overlapping matches, as Go's FindAllString (n < 0: all). */
export function findAll(s: string, pattern: string | RE2JS, limit = -1n): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = (typeof pattern === 'string' ? compileRegex(pattern) : pattern).matcher(s);
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length && (limit < 0n || BigInt(out.length) < limit)) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === start) {
      // An empty match right after the previous match is skipped (Go's allMatches).
      if (start === prevEnd) accept = false;
      const cp = s.codePointAt(end);
      pos = end + (cp !== undefined && cp > 0xffff ? 2 : 1);
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}

/** Empties the pattern cache (tests). */
export function clearRegexCache(): void {
  cache.clear();
}

export function regexCacheSize(): number {
  return cache.size;
}
