// JSON faults in a request body, described as Go's encoding/json scanner describes them (sigs.k8s.io/json
// internal/golang/encoding/json/scanner.go): the first syntax error with its position, and nesting deeper than
// kube-apiserver decodes.

export function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  return `'${c}'`;
}

const openBrace = 0x7b;
const openBracket = 0x5b;

/**
 * Finds the first syntax error in `text` (which JSON.parse rejected, or which nests too deep to be parsed) and describes it the way Go's encoding/json
 * does, with its position. Runs only for malformed bodies, so it is written for clarity, not speed; it keeps an
 * explicit stack so that deep nesting cannot overflow the call stack, one byte per level (a body of the size limit
 * nests 3.5 million levels: an array of them would take 28 MB).
 */
export function describeJSONSyntaxError(text: string): { position: number; message: string } | undefined {
  const n = text.length;
  let i = 0;
  let stack = new Uint8Array(64);
  let depth = 0;
  const push = (bracket: number): void => {
    if (depth === stack.length) {
      const grown = new Uint8Array(stack.length * 2);
      grown.set(stack);
      stack = grown;
    }
    stack[depth++] = bracket;
  };
  const fail = (context: string): { position: number; message: string } =>
    i >= n ? { position: n, message: 'unexpected end of JSON input' } : { position: i, message: `invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(i)!))} ${context}` };
  const skipSpace = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
  };
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  const scanString = (): string | undefined => {
    i++; // opening quote
    while (i < n) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c.charCodeAt(0) < 0x20) return 'in string literal';
      if (c === '\\') {
        i++;
        if (i >= n) return 'in string literal';
        const e = text[i]!;
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            i++;
            if (i >= n) return 'in \\u hexadecimal character escape';
            if (!/[0-9a-fA-F]/.test(text[i]!)) return 'in \\u hexadecimal character escape';
          }
        } else if (!'"\\/bfnrt'.includes(e)) return 'in string escape code';
      }
      i++;
    }
    return 'in string literal';
  };
  const scanNumber = (): string | undefined => {
    if (text[i] === '-') {
      i++;
      if (!isDigit(text[i])) return 'in numeric literal';
    }
    if (text[i] === '0') i++;
    else while (isDigit(text[i])) i++;
    if (text[i] === '.') {
      i++;
      if (!isDigit(text[i])) return 'after decimal point in numeric literal';
      while (isDigit(text[i])) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!isDigit(text[i])) return 'in exponent of numeric literal';
      while (isDigit(text[i])) i++;
    }
    return undefined;
  };
  const scanLiteral = (word: string): string | undefined => {
    for (let k = 0; k < word.length; k++, i++) {
      if (text[i] !== word[k]) return `in literal ${word} (expecting ${quoteChar(word[k]!)})`;
    }
    return undefined;
  };

  // The state machine: 'value' expects a value, 'key' an object key, 'after' follows a complete value.
  let state: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skipSpace();
    if (state === 'value') {
      const c = text[i];
      let fault: string | undefined;
      if (c === '{') {
        i++;
        skipSpace();
        if (text[i] === '}') {
          i++;
          state = 'after';
        } else {
          push(openBrace);
          state = 'key';
        }
        continue;
      } else if (c === '[') {
        i++;
        skipSpace();
        if (text[i] === ']') {
          i++;
          state = 'after';
        } else push(openBracket);
        continue;
      } else if (c === '"') fault = scanString();
      else if (c === '-' || isDigit(c)) fault = scanNumber();
      else if (c === 't') fault = scanLiteral('true');
      else if (c === 'f') fault = scanLiteral('false');
      else if (c === 'n') fault = scanLiteral('null');
      else fault = 'looking for beginning of value';
      if (fault !== undefined) return fail(fault);
      state = 'after';
    } else if (state === 'key') {
      if (text[i] !== '"') return fail('looking for beginning of object key string');
      const fault = scanString();
      if (fault !== undefined) return fail(fault);
      skipSpace();
      if (text[i] !== ':') return fail('after object key');
      i++;
      state = 'value';
    } else {
      const top = depth === 0 ? undefined : stack[depth - 1] === openBrace ? '{' : '[';
      if (top === undefined) return i < n ? fail('after top-level value') : undefined;
      const c = text[i];
      if (c === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
        i++;
        depth--;
      } else return fail(top === '{' ? 'after object key:value pair' : 'after array element');
    }
  }
}

export function lineAndColumn(text: string, position: number): string {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < position; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return `line ${line}, column ${position - lineStart + 1}`;
}

/**
 * kube-apiserver decodes JSON nested up to 10,000 levels (sigs.k8s.io/json scanner.go maxNestingDepth = 10000, the
 * document itself counting as one; k8s.io/apimachinery pkg/util/json maxDepth = 10000 for the number conversion), so
 * an object it sends can nest that deep.
 */
export const maxObjectDepth = 10_000;
/** An AdmissionReview holds its object two levels down (review → request → object). */
export const maxReviewDepth = maxObjectDepth + 2;

/**
 * The position of the first bracket in `text` (valid JSON) that opens level `limit + 1`, or undefined when nothing
 * nests that deep. Text shorter than 2 × (limit + 1) cannot, and is not scanned.
 */
export function excessiveNesting(text: string, limit: number): number | undefined {
  const n = text.length;
  if (n < 2 * (limit + 1)) return undefined;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: jump to its closing quote, the first one not escaped by an odd run of backslashes
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i === -1) return undefined;
        let k = i - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        if ((i - 1 - k) % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** Go's SyntaxError text for nesting past the limit at `position`: `invalid character '{' exceeded max depth`. */
export function depthErrorMessage(text: string, position: number): string {
  return `invalid character ${quoteChar(text[position]!)} exceeded max depth`;
}
