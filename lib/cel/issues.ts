// Compile issues rendered the way cel-go renders them (common/error.go, common/errors.go): one
// `ERROR: <input>:line:column: message` block per issue, the source line and a caret under the column,
// sorted by position, at most 100 reported. Kubernetes prefixes the whole text with `compilation failed: `.

/** One problem found in an expression, anchored at a UTF-16 offset of the source (or NO_LOCATION). */
export interface Issue {
  readonly offset: number;
  readonly message: string;
}

/** cel-go's common.NoLocation (line -1, column -1): displayed as `<input>:-1:0` without a snippet. */
export const NO_LOCATION = -1;

const MAX_ISSUES = 100;
const MAX_SNIPPET_BYTES = 16384;
const DOT = '.';
const CARET = '^';
const WIDE_DOT = '\uff0e';
const WIDE_CARET = '\uff3e';

interface Location {
  /** 1-based line */
  readonly line: number;
  /** 0-based column in code points, as cel-go counts runes */
  readonly column: number;
  /** the line's text, without its newline */
  readonly snippet: string;
}

function locate(source: string, offset: number): Location {
  const at = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i >= 0 && i < at; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  const lineEnd = source.indexOf('\n', lineStart);
  const snippet = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd);
  // Count code points, not UTF-16 units: cel-go columns are rune offsets.
  const column = Array.from(source.slice(lineStart, at)).length;
  return { line, column, snippet };
}

function isWide(char: string | undefined): boolean {
  return char !== undefined && (char.codePointAt(0) ?? 0) > 0x7f;
}

function displayIssue(source: string, issue: Issue): { loc: Location; text: string } {
  if (issue.offset === NO_LOCATION) return { loc: { line: -1, column: -1, snippet: '' }, text: `ERROR: <input>:-1:0: ${issue.message}` };
  const loc = locate(source, issue.offset);
  let text = `ERROR: <input>:${loc.line}:${loc.column + 1}: ${issue.message}`;
  // cel-go prints no snippet for an empty source or an over-long line.
  if (source.length > 0 && Buffer.byteLength(loc.snippet, 'utf8') <= MAX_SNIPPET_BYTES) {
    const snippet = loc.snippet.replaceAll('\t', ' ');
    const chars = Array.from(snippet);
    let marker = '';
    for (let i = 0; i < loc.column && i < chars.length; i++) marker += isWide(chars[i]) ? WIDE_DOT : DOT;
    marker += isWide(chars[loc.column]) ? WIDE_CARET : CARET;
    text += `\n | ${snippet}\n | ${marker}`;
  }
  return { loc, text };
}

/** cel-go `Errors.ToDisplayString()` for the given issues. */
export function displayIssues(source: string, issues: readonly Issue[]): string {
  const shown = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => displayIssue(source, issue))
    .sort((a, b) => a.loc.line - b.loc.line || a.loc.column - b.loc.column)
    .map((d) => d.text);
  if (issues.length > MAX_ISSUES) shown.push(`${issues.length - MAX_ISSUES} more errors were truncated`);
  return shown.join('\n');
}

/** The text Kubernetes' compiler returns for issues: `compilation failed: ` + cel-go's display string. */
export function compilationFailed(source: string, issues: readonly Issue[]): string {
  return `compilation failed: ${displayIssues(source, issues)}`;
}
