// Named health checks, kube-apiserver style: a check returns undefined when healthy or a reason when not.

export interface HealthCheck {
  readonly name: string;
  check(): string | undefined;
  /**
   * false: a failure is listed (verbose) but does not fail the endpoint, unless the check is asked for alone
   * (`/readyz/<name>`). Default true.
   */
  readonly blocking?: boolean;
}

export interface CheckReport {
  readonly ok: boolean;
  readonly body: string;
}

/**
 * Runs `checks` minus `exclude` (or only `only` when set) and renders kube's text:
 * `[+]ping ok` / `[-]name failed: reason withheld` lines (verbose or failing), then `<endpoint> check passed|failed`.
 */
export function runChecks(endpoint: string, checks: readonly HealthCheck[], options: { verbose: boolean; exclude: readonly string[]; only?: string }): CheckReport | undefined {
  let selected = checks.filter((c) => !options.exclude.includes(c.name));
  if (options.only !== undefined) {
    selected = checks.filter((c) => c.name === options.only);
    if (selected.length === 0) return undefined;
  }
  const lines: string[] = [];
  let ok = true;
  for (const c of selected) {
    const reason = c.check();
    if (reason === undefined) {
      lines.push(`[+]${c.name} ok`);
    } else {
      const blocks = c.blocking !== false || options.only !== undefined;
      if (blocks) ok = false;
      lines.push(`[-]${c.name} failed${blocks ? '' : ' (not blocking)'}: ${options.verbose ? reason : 'reason withheld'}`);
    }
  }
  for (const name of options.exclude) {
    if (checks.some((c) => c.name === name)) lines.push(`[+]${name} excluded: ok`);
  }
  if (ok && !options.verbose) return { ok, body: 'ok' };
  return { ok, body: `${lines.join('\n')}\n${endpoint} check ${ok ? 'passed' : 'failed'}\n` };
}
