// The credentials a webhook call presents, chosen from the plugin configuration's kubeConfigFile exactly as
// kube-apiserver chooses them (S/util/webhook/authentication.go, defaultAuthenticationInfoResolver.clientConfig):
//   1. users[].name equal to the URL's host:port (the port is 443 when the URL has none);
//   2. `*.<suffix>` names, longest suffix first (`*.b.example.com` before `*.example.com`);
//   3. when the port is 443: the same two lookups on the host alone;
//   4. the user named `*`;
//   5. the current context's user;
//   6. none (anonymous).
// restConfigFromKubeconfig and client-go's transport: a tokenFile is read at once and re-read every minute, and its
// token is sent even when an inline token is set too (the inline one only while the file cannot be read); client
// certificate and key (files or inline data); username/password, never together with a token. auth-provider is
// refused as upstream refuses it; exec plugins are refused by this daemon (it runs no credential helpers).
// Impersonation (`as`, `as-groups`, `as-user-extra`; only when `as` is set, and without `as-uid`, as upstream copies it
// into the rest config) is sent as client-go's impersonating round tripper sends it: Impersonate-User, one
// Impersonate-Group per group, one Impersonate-Extra-<escaped key> per value.
// Relative file paths are resolved against the kubeconfig's directory, as clientcmd resolves them.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

/** One kubeconfig user's credentials, files resolved to absolute paths. */
export interface AuthInfo {
  readonly token?: string;
  readonly tokenFile?: string;
  readonly clientCertificate?: string;
  readonly clientCertificateData?: string;
  readonly clientKey?: string;
  readonly clientKeyData?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: boolean;
  readonly authProvider?: boolean;
  /** `as`, `as-groups`, `as-user-extra` */
  readonly impersonate?: Impersonation;
}

export interface Impersonation {
  readonly user: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** What a call presents: PEM client certificate/key, Authorization header value. */
export interface Credentials {
  /** the kubeconfig user chosen (`""` when none) */
  readonly user: string;
  readonly certPEM?: string;
  readonly keyPEM?: string;
  /** `Bearer …` or `Basic …`; read per call (token files change) */
  authorization(): string | undefined;
  /** the Impersonate-* headers every call carries */
  readonly impersonationHeaders?: Readonly<Record<string, string | readonly string[]>>;
}

export interface Kubeconfig {
  readonly users: ReadonlyMap<string, AuthInfo>;
  readonly currentUser: string | undefined;
  /** the current context's cluster, when the kubeconfig has one */
  readonly currentCluster?: ClusterInfo;
}

/** A kubeconfig cluster: the server URL and the CA to verify it with (files resolved to absolute paths). */
export interface ClusterInfo {
  readonly server: string;
  readonly certificateAuthority?: string;
  readonly certificateAuthorityData?: string;
  readonly insecureSkipTLSVerify?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** restConfigFromKubeconfig copies Impersonate only when `as` is set (and never `as-uid`). */
function impersonationFrom(u: Record<string, unknown>): Impersonation | undefined {
  const user = str(u.as);
  if (user === undefined) return undefined;
  const extra: Record<string, string[]> = {};
  if (isObject(u['as-user-extra'])) for (const [k, v] of Object.entries(u['as-user-extra'])) extra[k] = strings(v);
  return { user, groups: strings(u['as-groups']), extra };
}

/** client-go's headerKeyEscape: bytes outside the RFC 7230 token set, and '%', percent-encoded. */
function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The headers client-go's impersonating round tripper adds. */
export function impersonationHeaders(imp: Impersonation): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'impersonate-user': imp.user };
  if (imp.groups.length > 0) headers['impersonate-group'] = [...imp.groups];
  for (const [k, values] of Object.entries(imp.extra)) {
    if (values.length === 0) continue;
    const name = `impersonate-extra-${headerKeyEscape(k)}`.toLowerCase();
    const prior = headers[name];
    headers[name] = [...(prior === undefined ? [] : Array.isArray(prior) ? prior : [prior]), ...values];
  }
  return headers;
}

/** Parses a kubeconfig's users, contexts and current-context. An empty path is an empty kubeconfig. */
export function loadKubeconfig(path: string): Kubeconfig {
  if (path === '') return { users: new Map(), currentUser: undefined };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`reading kubeconfig ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KubeconfigError(`decoding kubeconfig ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  return kubeconfigFrom(doc ?? {}, dirname(path), path);
}

export function kubeconfigFrom(doc: unknown, baseDir: string, path = '<inline>'): Kubeconfig {
  if (!isObject(doc)) throw new KubeconfigError(`decoding kubeconfig ${JSON.stringify(path)}: expected a mapping`);
  const file = (v: unknown): string | undefined => {
    const s = str(v);
    return s === undefined ? undefined : isAbsolute(s) ? s : resolve(baseDir, s);
  };
  const users = new Map<string, AuthInfo>();
  for (const entry of Array.isArray(doc.users) ? doc.users : []) {
    if (!isObject(entry) || typeof entry.name !== 'string') continue;
    const u = isObject(entry.user) ? entry.user : {};
    const info: Record<string, unknown> = {
      token: str(u.token),
      tokenFile: file(u.tokenFile),
      clientCertificate: file(u['client-certificate']),
      clientCertificateData: str(u['client-certificate-data']),
      clientKey: file(u['client-key']),
      clientKeyData: str(u['client-key-data']),
      username: str(u.username),
      password: str(u.password),
      exec: u.exec != null ? true : undefined,
      authProvider: u['auth-provider'] != null ? true : undefined,
      impersonate: impersonationFrom(u),
    };
    for (const k of Object.keys(info)) if (info[k] === undefined) delete info[k];
    users.set(entry.name, info as AuthInfo);
  }
  let currentUser: string | undefined;
  let currentCluster: ClusterInfo | undefined;
  const current = str(doc['current-context']);
  if (current !== undefined && Array.isArray(doc.contexts)) {
    const ctx = doc.contexts.find((c): c is Record<string, unknown> => isObject(c) && c.name === current);
    if (ctx && isObject(ctx.context)) {
      currentUser = str(ctx.context.user);
      const clusterName = str(ctx.context.cluster);
      const entry = Array.isArray(doc.clusters) ? doc.clusters.find((c): c is Record<string, unknown> => isObject(c) && c.name === clusterName) : undefined;
      if (entry !== undefined && isObject(entry.cluster)) {
        const c = entry.cluster;
        const info: Record<string, unknown> = {
          server: str(c.server) ?? '',
          certificateAuthority: file(c['certificate-authority']),
          certificateAuthorityData: str(c['certificate-authority-data']),
          insecureSkipTLSVerify: c['insecure-skip-tls-verify'] === true ? true : undefined,
        };
        for (const k of Object.keys(info)) if (info[k] === undefined) delete info[k];
        currentCluster = info as unknown as ClusterInfo;
      }
    }
  }
  return currentCluster === undefined ? { users, currentUser } : { users, currentUser, currentCluster };
}

/** The host:port key a webhook URL is looked up by (ClientManager.hookClientConfig). */
export function hostPortOf(url: URL): string {
  return url.port === '' ? `${url.host}:443` : url.host;
}

function wildcardLookup(users: ReadonlyMap<string, AuthInfo>, target: string): [string, AuthInfo] | undefined {
  const steps = target.split('.');
  for (let i = 1; i < steps.length; i++) {
    const nick = `*.${steps.slice(i).join('.')}`;
    const info = users.get(nick);
    if (info) return [nick, info];
  }
  return undefined;
}

/** Splits host:port like net.SplitHostPort (IPv6 in brackets). */
function splitHostPort(target: string): [string, string] | undefined {
  const m = /^\[([^\]]*)\]:(\d*)$/.exec(target) ?? /^([^:]*):(\d*)$/.exec(target);
  return m ? [m[1]!, m[2]!] : undefined;
}

/** The kubeconfig user for `hostPort`, or undefined (anonymous). */
export function selectUser(config: Kubeconfig, hostPort: string): [string, AuthInfo] | undefined {
  const exact = config.users.get(hostPort);
  if (exact) return [hostPort, exact];
  const star = wildcardLookup(config.users, hostPort);
  if (star) return star;
  const split = splitHostPort(hostPort);
  if (split && split[1] === '443') {
    const host = split[0];
    const exactHost = config.users.get(host);
    if (exactHost) return [host, exactHost];
    const starHost = wildcardLookup(config.users, host);
    if (starHost) return starHost;
  }
  const all = config.users.get('*');
  if (all) return ['*', all];
  if (config.currentUser !== undefined) {
    const cur = config.users.get(config.currentUser);
    if (cur) return [config.currentUser, cur];
  }
  return undefined;
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`open ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
}

/** client-go's cached file token source re-reads the file at most this often. */
const tokenFileRefreshMs = 60_000;

/** The credentials for one user; throws KubeconfigError when they cannot be used (upstream: the REST client fails). */
export function credentialsFrom(user: string, info: AuthInfo | undefined, now: () => number = Date.now): Credentials {
  if (info === undefined) return { user: '', authorization: () => undefined };
  if (info.authProvider) throw new KubeconfigError('auth provider not supported');
  if (info.exec) throw new KubeconfigError(`kubeconfig user ${JSON.stringify(user)}: exec credential plugins are not supported by static-admissiond`);
  // client-go: with a tokenFile the file's token is used (and re-read), the inline token only while the file cannot
  // be read; without one, the inline token
  let bearer: () => string | undefined = () => info.token;
  if (info.tokenFile !== undefined) {
    const path = info.tokenFile;
    let token: string | undefined;
    try {
      token = readFile(path).trim();
    } catch (err) {
      if (info.token === undefined) throw err;
    }
    let readAt = now();
    bearer = () => {
      if (now() - readAt >= tokenFileRefreshMs) {
        try {
          token = readFile(path).trim();
        } catch {
          // keep the last token, as the cached token source does
        }
        readAt = now();
      }
      return token ?? info.token;
    };
  }
  const hasToken = info.token !== undefined || info.tokenFile !== undefined;
  const hasBasic = info.username !== undefined || info.password !== undefined;
  if (hasToken && hasBasic) throw new KubeconfigError('username/password or bearer token may be set, but not both');
  let certPEM: string | undefined;
  let keyPEM: string | undefined;
  if (info.clientCertificate !== undefined || info.clientCertificateData !== undefined) {
    certPEM = info.clientCertificateData !== undefined ? Buffer.from(info.clientCertificateData, 'base64').toString('utf8') : readFile(info.clientCertificate!);
    if (info.clientKeyData !== undefined) keyPEM = Buffer.from(info.clientKeyData, 'base64').toString('utf8');
    else if (info.clientKey !== undefined) keyPEM = readFile(info.clientKey);
    else throw new KubeconfigError('tls: private key is missing for the client certificate');
  }
  const basic = hasBasic ? `Basic ${Buffer.from(`${info.username ?? ''}:${info.password ?? ''}`).toString('base64')}` : undefined;
  const creds: { user: string; certPEM?: string; keyPEM?: string; authorization(): string | undefined; impersonationHeaders?: Record<string, string | string[]> } = {
    user,
    authorization: () => {
      const token = bearer();
      if (token !== undefined && token !== '') return `Bearer ${token}`;
      return basic;
    },
  };
  if (info.impersonate !== undefined) creds.impersonationHeaders = impersonationHeaders(info.impersonate);
  if (certPEM !== undefined) creds.certPEM = certPEM;
  if (keyPEM !== undefined) creds.keyPEM = keyPEM;
  return creds;
}

/** upstream's AuthenticationInfoResolver for URL webhooks: credentials by host:port. */
export class AuthenticationInfoResolver {
  private readonly cache = new Map<string, Credentials>();
  constructor(private readonly config: Kubeconfig) {}

  static fromFile(path: string): AuthenticationInfoResolver {
    return new AuthenticationInfoResolver(loadKubeconfig(path));
  }

  /** Throws KubeconfigError when the chosen user's credentials cannot be used. */
  credentialsFor(hostPort: string): Credentials {
    let creds = this.cache.get(hostPort);
    if (creds === undefined) {
      const selected = selectUser(this.config, hostPort);
      creds = credentialsFrom(selected?.[0] ?? '', selected?.[1]);
      this.cache.set(hostPort, creds);
    }
    return creds;
  }
}

function readCA(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`unable to read certificate-authority ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
}

/** The kube-apiserver of a kubeconfig's current context: its https URL, the CA that verifies it, its user's credentials. */
export interface ClusterConnection {
  readonly base: URL;
  /** empty: the system roots */
  readonly caPEM: string;
  /** offers only the current context's user, whatever the host */
  readonly resolver: AuthenticationInfoResolver;
}

/** Reads the kubeconfig's current context as a client of that apiserver would. Throws KubeconfigError when it cannot be used. */
export function currentClusterConnection(path: string): ClusterConnection {
  const config = loadKubeconfig(path);
  const cluster = config.currentCluster;
  if (cluster === undefined || cluster.server === '') throw new KubeconfigError(`kubeconfig ${JSON.stringify(path)}: the current context names no cluster with a server`);
  if (cluster.insecureSkipTLSVerify === true) throw new KubeconfigError(`kubeconfig ${JSON.stringify(path)}: insecure-skip-tls-verify is not supported by static-admissiond`);
  let base: URL;
  try {
    base = new URL(cluster.server);
  } catch {
    throw new KubeconfigError(`kubeconfig ${JSON.stringify(path)}: invalid server URL ${JSON.stringify(cluster.server)}`);
  }
  if (base.protocol !== 'https:') throw new KubeconfigError(`kubeconfig ${JSON.stringify(path)}: the server must be an https:// URL, got ${JSON.stringify(cluster.server)}`);
  const caPEM = cluster.certificateAuthorityData !== undefined
    ? Buffer.from(cluster.certificateAuthorityData, 'base64').toString('utf8')
    : cluster.certificateAuthority !== undefined ? readCA(cluster.certificateAuthority) : '';
  const user = config.currentUser;
  const info = user === undefined ? undefined : config.users.get(user);
  const resolver = new AuthenticationInfoResolver({ users: info === undefined ? new Map() : new Map([[user!, info]]), currentUser: user });
  // fail now, not on the first call, when the credentials cannot be used
  resolver.credentialsFor(`${base.hostname}:${base.port || '443'}`);
  return { base, caPEM, resolver };
}
