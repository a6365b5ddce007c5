// `registration --kubeconfig`: what the printed objects depend on, read from the kube-apiserver they are for instead of
// guessed: its version (GET /version, as `kubectl version` reads it) and whether it serves the guard policy's API
// version (discovery, GET /apis/admissionregistration.k8s.io/<version>, as kubectl finds a kind before applying it).
// The kubeconfig's current context is read as the project's other apiserver client reads it (webhook/kubeconfig.ts).
import { Agent, request } from 'undici';
import { currentClusterConnection, KubeconfigError } from '../webhook/kubeconfig.js';
import { guardAPIVersion } from './guard.js';
import { KubeVersionError, parseKubeVersion } from './version.js';
import type { KubeVersion } from './version.js';

export class APIServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'APIServerError';
  }
}

export interface APIServerFacts {
  readonly version: KubeVersion;
  /** /version's gitVersion, `v1.28.7` */
  readonly gitVersion: string;
  /** the guard's group/version when the apiserver serves validatingadmissionpolicies there; undefined when none applies */
  readonly guardServed: boolean | undefined;
}

const requestTimeoutMs = 10_000;

/** /version's answer as a version: gitVersion, else major and minor (`"28+"` on some distributions). */
export function versionFromInfo(info: unknown): { version: KubeVersion; gitVersion: string } {
  const v = (info ?? {}) as { gitVersion?: unknown; major?: unknown; minor?: unknown };
  const gitVersion = typeof v.gitVersion === 'string' ? v.gitVersion : '';
  try {
    return { version: parseKubeVersion(gitVersion), gitVersion };
  } catch (err) {
    if (!(err instanceof KubeVersionError)) throw err;
  }
  const major = Number(String(v.major ?? '').replace(/\+$/, ''));
  const minor = Number(String(v.minor ?? '').replace(/\+$/, ''));
  if (!Number.isInteger(major) || !Number.isInteger(minor) || String(v.major ?? '') === '' || String(v.minor ?? '') === '') {
    throw new APIServerError(`the apiserver's /version names no version: ${JSON.stringify(info)}`);
  }
  return { version: { major, minor }, gitVersion: gitVersion || `v${major}.${minor}` };
}

/** Reads the version and the guard's API from the kubeconfig's current context. Throws APIServerError. */
export async function readAPIServer(kubeconfig: string): Promise<APIServerFacts> {
  let connection;
  try {
    connection = currentClusterConnection(kubeconfig);
  } catch (err) {
    if (err instanceof KubeconfigError) throw new APIServerError(`--kubeconfig: ${err.message}`);
    throw err;
  }
  const { base, caPEM, resolver } = connection;
  const credentials = resolver.credentialsFor(`${base.hostname}:${base.port || '443'}`);
  const agent = new Agent({
    connect: {
      rejectUnauthorized: true,
      ...(caPEM === '' ? {} : { ca: caPEM }),
      ...(credentials.certPEM === undefined ? {} : { cert: credentials.certPEM, key: credentials.keyPEM }),
    },
  });
  const headers: Record<string, string | string[]> = { accept: 'application/json' };
  const authorization = credentials.authorization();
  if (authorization !== undefined) headers.authorization = authorization;
  for (const [k, v] of Object.entries(credentials.impersonationHeaders ?? {})) headers[k] = typeof v === 'string' ? v : [...v];
  const root = base.toString().replace(/\/+$/, '');
  /** the JSON body, or undefined on 404 */
  const get = async (path: string): Promise<unknown> => {
    const url = `${root}${path}`;
    let status: number;
    let text: string;
    try {
      const response = await request(url, { dispatcher: agent, headers, signal: AbortSignal.timeout(requestTimeoutMs) });
      status = response.statusCode;
      text = await response.body.text();
    } catch (err) {
      throw new APIServerError(`GET ${url}: ${(err as Error).message}`);
    }
    if (status === 404) return undefined;
    if (status !== 200) throw new APIServerError(`GET ${url}: ${status}: ${text.slice(0, 300)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new APIServerError(`GET ${url}: not JSON: ${(err as Error).message}`);
    }
  };
  try {
    const info = await get('/version');
    if (info === undefined) throw new APIServerError(`GET ${root}/version: 404`);
    const { version, gitVersion } = versionFromInfo(info);
    const groupVersion = guardAPIVersion(version);
    let guardServed: boolean | undefined;
    if (groupVersion !== undefined) {
      const list = await get(`/apis/${groupVersion}`) as { resources?: Array<{ name?: unknown }> } | undefined;
      guardServed = (list?.resources ?? []).some((r) => r.name === 'validatingadmissionpolicies');
    }
    return { version, gitVersion, guardServed };
  } finally {
    await agent.close();
  }
}
