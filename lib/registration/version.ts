// `--kube-version`: the kube-apiserver a registration is printed for (it decides matchConditions or enumerated
// rules, and the guard policy's API version). There is no default: objects printed for a guessed version may be ones
// the apiserver cannot take (a v1 guard on 1.28), so the api format needs the version given or read (--kubeconfig).
export interface KubeVersion {
  readonly major: number;
  readonly minor: number;
}

export class KubeVersionError extends Error {}

/** `1.28`, `v1.28.7`, `1.30.0-rc.1` → {1, 28}. */
export function parseKubeVersion(text: string): KubeVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$/.exec(text.trim());
  if (!m) throw new KubeVersionError(`invalid --kube-version ${JSON.stringify(text)}: want MAJOR.MINOR, e.g. 1.28 or v1.28.7`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export function atLeast(v: KubeVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

export function formatKubeVersion(v: KubeVersion): string {
  return `${v.major}.${v.minor}`;
}
