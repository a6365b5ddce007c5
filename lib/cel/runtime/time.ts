// Timestamps and durations as cel-go has them: RFC 3339 timestamps with nanoseconds in 0001..9999, Go
// time.ParseDuration syntax for durations (int64 nanoseconds), the timestamp getters with an optional time zone
// (an IANA name or a `[+-]hh:mm` offset), and their string forms.

import { formatDoublePlain } from './numbers.js';
import { CelDuration, CelTimestamp, MAX_INT64, MIN_INT64, NANOS_PER_SECOND, celError, timestamp } from './values.js';

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!;
}

/** UTC milliseconds of a civil date-time, valid for years 0000..9999. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** String.ConvertToType's failures (common/types/string.go). */
export const TIMESTAMP_CONVERSION_ERROR = "type conversion error from 'string' to 'google.protobuf.Timestamp'";
export const DURATION_CONVERSION_ERROR = "type conversion error from 'string' to 'google.protobuf.Duration'";

/**
 * Go's time.Parse(time.RFC3339, s) (time/format.go, format_rfc3339.go): `2006-01-02T15:04:05Z07:00`, a one- or
 * two-digit hour, an optional fraction after `.` or `,` (digits past the ninth ignored), `Z` or `±hh:mm` (up to
 * 24:60). Returns the instant and its offset in seconds east of UTC, or undefined.
 */
function parseRFC3339(s: string): { seconds: bigint; nanos: bigint; offset: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 24 || om > 60) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = BigInt(utcMillis(year, month, day, hour, minute, second) / 1000) - BigInt(offset);
  const nanos = m[7] === undefined ? 0n : BigInt(m[7].slice(0, 9).padEnd(9, '0'));
  return { seconds, nanos, offset };
}

/**
 * timestamp(string): the instant, keeping the parsed offset (String.ConvertToType, common/types/string.go): a
 * string Go does not parse is a type conversion error, a year outside 0001..9999 in UTC `timestamp overflow`.
 */
export function parseTimestamp(s: string): CelTimestamp {
  const parsed = parseRFC3339(s);
  if (parsed === undefined) throw celError(TIMESTAMP_CONVERSION_ERROR);
  return timestamp(parsed.seconds * NANOS_PER_SECOND + parsed.nanos, parsed.offset);
}

/** timestamp(int): seconds since the epoch, in UTC (Int.ConvertToType, common/types/int.go). */
export function timestampFromSeconds(seconds: bigint): CelTimestamp {
  return timestamp(seconds * NANOS_PER_SECOND);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * string(timestamp): Go's t.Format(time.RFC3339Nano) in the timestamp's own offset (Timestamp.ConvertToType):
 * trailing zeros of the fraction dropped, `Z` for a zero offset, `±hh:mm` otherwise.
 */
export function formatTimestamp(t: CelTimestamp): string {
  const d = new Date((Number(t.seconds) + t.offset) * 1000);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const nanos = t.nanoOfSecond;
  const frac = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  if (t.offset === 0) return `${date}T${time}${frac}Z`;
  const east = Math.abs(t.offset);
  const zone = `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(east / 3600))}:${pad(Math.floor((east % 3600) / 60))}`;
  return `${date}T${time}${frac}${zone}`;
}

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const TWO_63 = 1n << 63n;

/** duration(string): Go's time.ParseDuration; any failure is String.ConvertToType's conversion error. */
export function parseDuration(input: string): CelDuration {
  const invalid = (): never => {
    throw celError(DURATION_CONVERSION_ERROR);
  };
  let s = input;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return new CelDuration(0n);
  if (s === '') invalid();
  let total = 0n;
  const component = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/;
  while (s !== '') {
    const m = component.exec(s);
    if (m === null) return invalid();
    const whole = m[1]!;
    const frac = m[2];
    if (whole === '' && (frac === undefined || frac === '')) invalid();
    const unitName = /^(ns|us|µs|μs|ms|s|m|h)/.exec(m[3]!)?.[1];
    if (unitName === undefined) invalid();
    const unit = UNIT_NANOS[unitName!]!;
    s = s.slice(whole.length + (frac === undefined ? 0 : frac.length + 1) + unitName!.length);
    let v = (whole === '' ? 0n : BigInt(whole)) * unit;
    if (frac !== undefined && frac !== '') v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    if (total > TWO_63) invalid();
  }
  if (negative) total = -total;
  if (total > MAX_INT64 || total < MIN_INT64) invalid();
  return new CelDuration(total);
}

/** string(duration): seconds in Go's shortest plain float form, then `s` (cel-go). */
export function formatDuration(d: CelDuration): string {
  const whole = d.nanos / NANOS_PER_SECOND;
  const nanos = d.nanos - whole * NANOS_PER_SECOND;
  return `${formatDoublePlain(Number(whole) + Number(nanos) / 1e9)}s`;
}

/** Calendar fields of a timestamp in some zone. */
interface Civil {
  readonly year: number;
  /** 1..12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw celError(`unknown time zone ${zone}`);
    }
    if (formatters.size > 256) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

function civilUtc(ms: number): Civil {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** strconv.Atoi, with its error text (`strconv.Atoi: parsing "x": invalid syntax`). */
function atoi(s: string): number {
  if (!/^[-+]?[0-9]+$/.test(s)) throw celError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > MAX_INT64 || n < MIN_INT64) throw celError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(n);
}

/**
 * The calendar fields in the zone a getter names (common/types/timestamp.go timeZone): an IANA name through
 * time.LoadLocation (`unknown time zone X`; "" and "UTC" are UTC, "Local" is the apiserver's zone, UTC in its
 * image), or, when the text has a colon, `hh:mm` read with strconv.Atoi, the minutes counted against the sign.
 */
function civil(t: CelTimestamp, zone: string): Civil {
  const ms = Number(t.seconds) * 1000;
  if (zone === 'UTC' || zone === '' || zone === 'Local') return civilUtc(ms);
  const colon = zone.indexOf(':');
  if (colon >= 0) {
    const hours = atoi(zone.slice(0, colon));
    const minutes = atoi(zone.slice(colon + 1));
    const offset = zone.startsWith('-') ? hours * 60 - minutes : hours * 60 + minutes;
    return civilUtc(ms + offset * 60_000);
  }
  const parts = zoneFormatter(zone).formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const era = parts.find((p) => p.type === 'era')?.value;
  const year = get('year');
  return {
    year: era === 'BC' || era === 'B' ? 1 - year : year,
    month: get('month'),
    day: get('day'),
    hour: get('hour') % 24,
    minute: get('minute'),
    second: get('second'),
  };
}

function civilDate(c: Civil): Date {
  const d = new Date(0);
  d.setUTCFullYear(c.year, c.month - 1, c.day);
  return d;
}

export type TimestampField =
  | 'getFullYear'
  | 'getMonth'
  | 'getDate'
  | 'getDayOfMonth'
  | 'getDayOfWeek'
  | 'getDayOfYear'
  | 'getHours'
  | 'getMinutes'
  | 'getSeconds'
  | 'getMilliseconds';

export const TIMESTAMP_FIELDS: ReadonlySet<string> = new Set([
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]);

/**
 * A timestamp getter (cel-go's standard library): in UTC without a zone argument, whatever offset the timestamp
 * was parsed with (stdlib/standard.go passes "UTC"), else in the given zone.
 */
export function timestampField(t: CelTimestamp, field: TimestampField, zone = 'UTC'): bigint {
  const c = civil(t, zone);
  if (field === 'getMilliseconds') return BigInt(Math.floor(t.nanoOfSecond / 1e6));
  switch (field) {
    case 'getFullYear':
      return BigInt(c.year);
    case 'getMonth':
      return BigInt(c.month - 1);
    case 'getDate':
      return BigInt(c.day);
    case 'getDayOfMonth':
      return BigInt(c.day - 1);
    case 'getDayOfWeek':
      return BigInt(civilDate(c).getUTCDay());
    case 'getDayOfYear': {
      const start = new Date(0);
      start.setUTCFullYear(c.year, 0, 1);
      return BigInt(Math.round((civilDate(c).getTime() - start.getTime()) / 86_400_000));
    }
    case 'getHours':
      return BigInt(c.hour);
    case 'getMinutes':
      return BigInt(c.minute);
    case 'getSeconds':
      return BigInt(c.second);
  }
}

export const DURATION_FIELDS: ReadonlySet<string> = new Set(['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']);

export function durationField(d: CelDuration, field: string): bigint {
  switch (field) {
    case 'getHours':
      return d.nanos / 3_600_000_000_000n;
    case 'getMinutes':
      return d.nanos / 60_000_000_000n;
    case 'getSeconds':
      return d.nanos / NANOS_PER_SECOND;
    default:
      // the milliseconds part, as the cel-spec conformance suite has it; cel-go v0.26.0 returns the whole duration
      // in milliseconds (types.DurationGetMilliseconds) and skips that test (conformance/BUILD.bazel)
      return (d.nanos / 1_000_000n) % 1000n;
  }
}
