// A reader for the protobuf text format, as far as the cel-spec "simple" test files use it: nested messages
// (`name { … }`, `name: { … }`, `name < … >`), scalars (identifiers, numbers, enum names), adjacent quoted strings
// with C-style escapes, `[a, b]` lists, `[type.googleapis.com/…]` extension/Any keys and `#` comments.
// Every field is repeated in the result (a list of values); strings stay raw bytes until a caller decodes them.

export interface TextString {
  readonly kind: 'string';
  readonly bytes: Uint8Array;
}

export interface TextScalar {
  readonly kind: 'scalar';
  readonly text: string;
}

export interface TextMessage {
  readonly kind: 'message';
  readonly fields: Map<string, TextValue[]>;
}

export type TextValue = TextString | TextScalar | TextMessage;

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  n: 10,
  t: 9,
  r: 13,
  '\\': 92,
  "'": 39,
  '"': 34,
  a: 7,
  b: 8,
  f: 12,
  v: 11,
  '?': 63,
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

class Reader {
  private i = 0;
  constructor(private readonly src: string) {}

  private fail(what: string): never {
    throw new Error(`textproto: ${what} at offset ${this.i}: ${JSON.stringify(this.src.slice(this.i, this.i + 40))}`);
  }

  private skip(): void {
    for (;;) {
      while (this.i < this.src.length && /\s/.test(this.src.charAt(this.i))) this.i++;
      if (this.src.charAt(this.i) !== '#') return;
      while (this.i < this.src.length && this.src.charAt(this.i) !== '\n') this.i++;
    }
  }

  private peek(): string {
    this.skip();
    return this.src.charAt(this.i);
  }

  private fieldName(): string {
    this.skip();
    if (this.src.charAt(this.i) === '[') {
      const end = this.src.indexOf(']', this.i);
      if (end < 0) this.fail('unterminated [name]');
      const name = this.src.slice(this.i, end + 1);
      this.i = end + 1;
      return name;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.src.slice(this.i, this.i + 256));
    if (m === null) this.fail('field name expected');
    this.i += m[0].length;
    return m[0];
  }

  private quoted(): TextString {
    const out: number[] = [];
    while (this.peek() === '"' || this.peek() === "'") {
      const quote = this.src.charAt(this.i++);
      for (;;) {
        if (this.i >= this.src.length) this.fail('unterminated string');
        const c = this.src.charAt(this.i);
        if (c === quote) {
          this.i++;
          break;
        }
        if (c !== '\\') {
          const cp = this.src.codePointAt(this.i)!;
          const ch = String.fromCodePoint(cp);
          this.i += ch.length;
          out.push(...encoder.encode(ch));
          continue;
        }
        const e = this.src.charAt(this.i + 1);
        this.i += 2;
        if (e in SIMPLE_ESCAPES) out.push(SIMPLE_ESCAPES[e]!);
        else if (/[0-7]/.test(e)) {
          let digits = e;
          while (digits.length < 3 && /[0-7]/.test(this.src.charAt(this.i))) digits += this.src.charAt(this.i++);
          out.push(parseInt(digits, 8) & 0xff);
        } else if (e === 'x' || e === 'X') {
          let digits = '';
          while (digits.length < 2 && /[0-9a-fA-F]/.test(this.src.charAt(this.i))) digits += this.src.charAt(this.i++);
          out.push(parseInt(digits, 16));
        } else if (e === 'u' || e === 'U') {
          const n = e === 'u' ? 4 : 8;
          const cp = parseInt(this.src.slice(this.i, this.i + n), 16);
          this.i += n;
          out.push(...encoder.encode(String.fromCodePoint(cp)));
        } else this.fail(`bad escape \\${e}`);
      }
    }
    return { kind: 'string', bytes: Uint8Array.from(out) };
  }

  private scalarOrString(): TextString | TextScalar {
    const c = this.peek();
    if (c === '"' || c === "'") return this.quoted();
    const m = /^[-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?[fFuU]?|[A-Za-z_][A-Za-z0-9_.]*|0[xX][0-9a-fA-F]+)/.exec(this.src.slice(this.i, this.i + 128));
    if (m === null) this.fail('value expected');
    this.i += m[0].length;
    return { kind: 'scalar', text: m[0] };
  }

  message(close: string | undefined): TextMessage {
    const fields = new Map<string, TextValue[]>();
    const add = (name: string, value: TextValue): void => {
      let list = fields.get(name);
      if (list === undefined) fields.set(name, (list = []));
      list.push(value);
    };
    for (;;) {
      const c = this.peek();
      if (c === '') {
        if (close !== undefined) this.fail('unexpected end of input');
        return { kind: 'message', fields };
      }
      if (c === close) {
        this.i++;
        return { kind: 'message', fields };
      }
      if (c === ',' || c === ';') {
        this.i++;
        continue;
      }
      const name = this.fieldName();
      if (this.peek() === ':') this.i++;
      const v = this.peek();
      if (v === '{' || v === '<') {
        this.i++;
        add(name, this.message(v === '{' ? '}' : '>'));
      } else if (v === '[') {
        this.i++;
        for (;;) {
          const n = this.peek();
          if (n === ']') {
            this.i++;
            break;
          }
          if (n === ',') {
            this.i++;
            continue;
          }
          if (n === '{' || n === '<') {
            this.i++;
            add(name, this.message(n === '{' ? '}' : '>'));
          } else add(name, this.scalarOrString());
        }
      } else add(name, this.scalarOrString());
    }
  }
}

/** Parses a whole text-format document into its top-level message. */
export function parseTextproto(source: string): TextMessage {
  return new Reader(source).message(undefined);
}

/** The first value of a field, or undefined. */
export function first(message: TextMessage | undefined, field: string): TextValue | undefined {
  return message?.fields.get(field)?.[0];
}

/** All values of a field (empty when absent). */
export function all(message: TextMessage | undefined, field: string): readonly TextValue[] {
  return message?.fields.get(field) ?? [];
}

export function messageField(message: TextMessage | undefined, field: string): TextMessage | undefined {
  const v = first(message, field);
  return v?.kind === 'message' ? v : undefined;
}

/** A string field decoded as UTF-8, or a scalar's text. */
export function text(value: TextValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.kind === 'string') return decoder.decode(value.bytes);
  if (value.kind === 'scalar') return value.text;
  return undefined;
}

export function stringField(message: TextMessage | undefined, field: string): string | undefined {
  return text(first(message, field));
}
