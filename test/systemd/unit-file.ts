// Reading systemd unit files in tests: the repository's unit (unit.test.ts) and the one the package installs
// (test/packaging).
import assert from 'node:assert/strict';

export type Unit = Map<string, Map<string, string[]>>;

/**
 * A small reader for systemd unit syntax: sections, repeated keys (values accumulate, an empty
 * assignment resets the list), '#'/';' comments, and backslash line continuation (the backslash
 * becomes a space; comment lines inside a continuation are skipped), as systemd.syntax(7) says.
 */
export function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) {
      line = line.slice(0, -1) + ' ';
      let next = lines[++i]!;
      while (/^\s*[#;]/.test(next) && i + 1 < lines.length) next = lines[++i]!;
      line += next.trim();
    }
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = unit.get(header[1]!) ?? new Map();
      unit.set(header[1]!, section);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(section && eq > 0, `not an assignment inside a section: ${line}`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (value === '') section.set(key, []);
    else section.set(key, [...(section.get(key) ?? []), value]);
  }
  return unit;
}

/** All values of a key, each split on whitespace (for list settings such as Before= or ReadOnlyPaths=). */
export function words(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section)?.get(key) ?? []).flatMap((v) => v.split(/\s+/)).filter((w) => w !== '');
}

export function one(unit: Unit, section: string, key: string): string {
  const values = unit.get(section)?.get(key);
  assert.ok(values && values.length === 1, `[${section}] ${key}= should be set exactly once, got ${JSON.stringify(values)}`);
  return values[0]!;
}
