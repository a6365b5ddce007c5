// Go's strconv.ParseFloat syntax, for double(string) (cel-go common/types/string.go String.ConvertToType).

const DECIMAL_FLOAT = /^[-+]?(?=[0-9_.]*[0-9])[0-9_]*\.?[0-9_]*(?:[eE][-+]?[0-9][0-9_]*)?$/;
const HEX_FLOAT = /^[-+]?0[xX](?=[0-9a-fA-F_.]*[0-9a-fA-F])([0-9a-fA-F_]*)\.?([0-9a-fA-F_]*)[pP]([-+]?[0-9][0-9_]*)$/;

/** strconv's underscoreOK: underscores only between digits (or after a base prefix). */
function underscoreOK(input: string): boolean {
  let s = input;
  let saw = '^';
  let i = 0;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * strconv.ParseFloat(s, 64): decimal or hexadecimal (`0x1.8p1`) syntax with `_` separators, `inf`/`infinity`
 * (signed) and `nan` in any case; a value beyond float64 is a failure (ErrRange). Undefined when it fails.
 */
export function parseGoFloat(s: string): number | undefined {
  const unsigned = s.startsWith('+') || s.startsWith('-') ? s.slice(1) : s;
  const special = unsigned.toLowerCase();
  if (special === 'inf' || special === 'infinity') return s.startsWith('-') ? -Infinity : Infinity;
  if (s === unsigned && special === 'nan') return NaN;
  let value: number;
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) {
    if (s.includes('_') && !underscoreOK(s)) return undefined;
    const whole = hex[1]!.replace(/_/g, '');
    const frac = hex[2]!.replace(/_/g, '');
    let exponent = Number(hex[3]!.replace(/_/g, '')) - 4 * frac.length;
    value = Number(BigInt(`0x${whole}${frac}`));
    // scale by powers of two in steps, so that an intermediate power does not under- or overflow
    while (exponent > 1000 && Number.isFinite(value)) {
      value *= 2 ** 1000;
      exponent -= 1000;
    }
    while (exponent < -1000 && value !== 0) {
      value *= 2 ** -1000;
      exponent += 1000;
    }
    value *= 2 ** exponent;
    if (s.startsWith('-')) value = -value;
  } else {
    if (!DECIMAL_FLOAT.test(s)) return undefined;
    if (s.includes('_') && !underscoreOK(s)) return undefined;
    value = Number(s.replace(/_/g, ''));
  }
  return Number.isFinite(value) ? value : undefined;
}
