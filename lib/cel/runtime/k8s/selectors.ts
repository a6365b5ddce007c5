// Field and label selector strings as the authorizer library parses them for `fieldSelector()` / `labelSelector()`
// checks (library/authz.go resourceCheckVal.Authorize): apimachinery fields.ParseSelector and
// labels.ParseToRequirements, reduced to what a SubjectAccessReview carries (plugin/pkg/authorizer/webhook
// fieldSelectorToAuthorizationAPI / labelSelectorToAuthorizationAPI: Equals/In → In, NotEquals/NotIn → NotIn, Exists,
// DoesNotExist; other operators dropped). A selector that fails to parse has no requirements.
import type { ParsedSelector, SelectorRequirement } from '../../authorization.js';
import { isQualifiedName, isValidLabelValue } from '../../../validation/names.js';

const NONE: ParsedSelector = Object.freeze({ requirements: Object.freeze([]), text: '' });

/** fields/selector.go splitTerms: commas not escaped by a backslash separate the terms. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const FIELD_OPERATORS = ['!=', '==', '='] as const;

/** fields/selector.go UnescapeValue; undefined for an invalid escape or an unescaped `,` / `=`. */
function unescapeFieldValue(s: string): string | undefined {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') return undefined;
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') return undefined;
    else out += c;
  }
  return inSlash ? undefined : out;
}

/** fields.ParseSelector(s).Requirements(), as SelectorRequirements. */
export function parseFieldSelector(selector: string): ParsedSelector {
  // sort.StringSlice(parts).Sort(): byte order of the terms
  const parts = splitTerms(selector).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const requirements: SelectorRequirement[] = [];
  const text: string[] = [];
  for (const part of parts) {
    if (part === '') continue;
    let split: { lhs: string; op: string; rhs: string } | undefined;
    for (let i = 0; i < part.length && split === undefined; i++) {
      const op = FIELD_OPERATORS.find((o) => part.startsWith(o, i));
      if (op !== undefined) split = { lhs: part.slice(0, i), op, rhs: part.slice(i + op.length) };
    }
    if (split === undefined) return { ...NONE, error: `invalid selector: '${selector}'; can't understand '${part}'` };
    const value = unescapeFieldValue(split.rhs);
    if (value === undefined) return { ...NONE, error: `invalid field selector value: '${split.rhs}'` };
    requirements.push({ key: split.lhs, operator: split.op === '!=' ? 'NotIn' : 'In', values: [value] });
    text.push(`${split.lhs}${split.op === '!=' ? '!=' : '='}${value}`);
  }
  return { requirements, text: text.join(',') };
}

type Token = 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(' | 'id' | 'error';
const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'], [',', ','], ['!', '!'], ['==', '=='], ['=', '='], ['>', '>'], ['in', 'in'], ['<', '<'], ['!=', '!='], ['notin', 'notin'], ['(', '('],
]);
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

/** labels/selector.go Lexer: the whole input as tokens. */
function lex(s: string): Array<{ tok: Token; lit: string }> {
  const items: Array<{ tok: Token; lit: string }> = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buffer = '';
      let last: { tok: Token; lit: string } | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos];
        pos++;
        const tok = KEYWORDS.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer };
        else if (last !== undefined) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let word = '';
    while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) word += s[pos++];
    items.push({ tok: KEYWORDS.get(word) ?? 'id', lit: word });
  }
}

type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | '>' | '<' | 'exists' | '!';
interface LabelRequirement {
  readonly key: string;
  readonly op: LabelOperator;
  readonly values: string[];
}

class LabelSyntaxError extends Error {}

/** labels.ParseToRequirements: the parser of labels/selector.go, with NewRequirement's validation. */
function parseLabelRequirements(selector: string): LabelRequirement[] {
  const items = lex(selector);
  let position = 0;
  // in the Values context `in`/`notin` are identifiers
  const asValue = (t: Token): Token => (t === 'in' || t === 'notin' ? 'id' : t);
  const lookahead = (values: boolean): { tok: Token; lit: string } => {
    const it = items[position]!;
    return values ? { tok: asValue(it.tok), lit: it.lit } : it;
  };
  const consume = (values: boolean): { tok: Token; lit: string } => {
    const it = lookahead(values);
    position++;
    return it;
  };
  const fail = (message: string): never => {
    throw new LabelSyntaxError(message);
  };
  const requirement = (key: string, op: LabelOperator, values: string[]): LabelRequirement => {
    if (isQualifiedName(key).length > 0) fail(`invalid label key "${key}"`);
    if ((op === 'in' || op === 'notin') && values.length === 0) fail("for 'in', 'notin' operators, values set can't be empty");
    if ((op === '>' || op === '<') && !values.every((v) => /^[+-]?\d+$/.test(v))) fail("for 'Gt', 'Lt' operators, the value must be an integer");
    for (const v of values) if (isValidLabelValue(v).length > 0) fail(`invalid label value "${v}"`);
    return { key, op, values };
  };
  const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort();

  const parseRequirement = (): LabelRequirement => {
    let { tok, lit } = consume(true);
    let op: LabelOperator | undefined;
    if (tok === '!') {
      op = '!';
      ({ tok, lit } = consume(true));
    }
    if (tok !== 'id') fail(`found '${lit}', expected: identifier`);
    const key = lit;
    if (isQualifiedName(key).length > 0) fail(`invalid label key "${key}"`);
    const next = lookahead(true).tok;
    if (next === 'end' || next === ',') return requirement(key, op ?? 'exists', []);
    if (op === '!') return requirement(key, op, []);
    const opTok = consume(false);
    const binary: Partial<Record<Token, LabelOperator>> = { in: 'in', '=': '=', '==': '==', '>': '>', '<': '<', notin: 'notin', '!=': '!=' };
    const operator = binary[opTok.tok] ?? fail(`found '${opTok.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    if (operator === 'in' || operator === 'notin') {
      const open = consume(true);
      if (open.tok !== '(') fail(`found '${open.lit}' expected: '('`);
      const first = lookahead(true);
      if (first.tok === ')') {
        consume(true);
        return requirement(key, operator, ['']);
      }
      if (first.tok !== 'id' && first.tok !== ',') fail(`found '${first.lit}', expected: ',', ')' or identifier`);
      const values = new Set<string>();
      for (;;) {
        const t = consume(true);
        if (t.tok === 'id') {
          values.add(t.lit);
          const t2 = lookahead(true);
          if (t2.tok === ',') continue;
          if (t2.tok === ')') break;
          fail(`found '${t2.lit}', expected: ',' or ')'`);
        } else if (t.tok === ',') {
          if (values.size === 0) values.add('');
          const t2 = lookahead(true).tok;
          if (t2 === ')') {
            values.add('');
            break;
          }
          if (t2 === ',') values.add('');
        } else fail(`found '${t.lit}', expected: ',', or identifier`);
      }
      if (consume(true).tok !== ')') fail(`found '${first.lit}', expected: ')'`);
      return requirement(key, operator, sortedSet(values));
    }
    const value = lookahead(true);
    if (value.tok === 'end' || value.tok === ',') return requirement(key, operator, ['']);
    const v = consume(true);
    if (v.tok !== 'id') fail(`found '${v.lit}', expected: identifier`);
    return requirement(key, operator, [v.lit]);
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const { tok, lit } = lookahead(true);
    if (tok === 'end') break;
    if (tok !== 'id' && tok !== '!') fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
    requirements.push(parseRequirement());
    const t = consume(true);
    if (t.tok === 'end') break;
    if (t.tok !== ',') fail(`found '${t.lit}', expected: ',' or 'end of string'`);
    const t2 = lookahead(true);
    if (t2.tok !== 'id' && t2.tok !== '!') fail(`found '${t2.lit}', expected: identifier after ','`);
  }
  // sort.Sort(ByKey(items)); a stable sort here where Go's is not (keys rarely repeat)
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** labels.Requirement.String() */
function requirementText(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort().join(',');
  switch (r.op) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case 'in': return `${r.key} in (${values})`;
    case 'notin': return `${r.key} notin (${values})`;
    default: return `${r.key}${r.op}${values}`;
  }
}

/** labels.ParseToRequirements(s) in the webhook authorizer's terms. */
export function parseLabelSelector(selector: string): ParsedSelector {
  let parsed: LabelRequirement[];
  try {
    parsed = parseLabelRequirements(selector);
  } catch (err) {
    if (err instanceof LabelSyntaxError) return { ...NONE, error: `unable to parse requirement: ${err.message}` };
    throw err;
  }
  const requirements: SelectorRequirement[] = [];
  for (const r of parsed) {
    const values = r.values.length > 0 ? { values: r.values } : {};
    if (r.op === '=' || r.op === '==' || r.op === 'in') requirements.push({ key: r.key, operator: 'In', ...values });
    else if (r.op === '!=' || r.op === 'notin') requirements.push({ key: r.key, operator: 'NotIn', ...values });
    else if (r.op === 'exists') requirements.push({ key: r.key, operator: 'Exists' });
    else if (r.op === '!') requirements.push({ key: r.key, operator: 'DoesNotExist' });
  }
  return { requirements, text: parsed.map(requirementText).join(',') };
}
