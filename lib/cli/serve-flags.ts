// `serve`'s flags: names, defaults and help, as `static-admissiond serve --help` prints them.
import { defaultPoolThreads, defaultWorkerMaxOldSpaceMb } from '../admission/pool/pool.js';
import { defaultAdmissionServerLimits, formatMs } from '../server/limits.js';
import { authorizationFlag, configFlags, crdFlag } from './common.js';
import type { FlagSpec } from './flags.js';

export const serveFlags: readonly FlagSpec[] = [
  ...configFlags,
  crdFlag,
  { name: 'bind-address', type: 'string', default: '127.0.0.1', usage: 'address of the HTTPS admission listener' },
  { name: 'secure-port', type: 'int', default: 9443, usage: 'port of the HTTPS admission listener (0 picks a free one)' },
  { name: 'tls-cert-file', type: 'string', default: '', usage: 'serving certificate (PEM); reloaded when it changes, the last good pair kept' },
  { name: 'tls-private-key-file', type: 'string', default: '', usage: 'serving private key (PEM) matching --tls-cert-file' },
  { name: 'client-ca-file', type: 'string', default: '', usage: 'when set, clients (the apiserver) must present a certificate signed by this CA' },
  { name: 'health-bind-address', type: 'string', default: '127.0.0.1:9444', usage: 'host:port of the plain-HTTP /metrics, /livez, /readyz, /healthz listener' },
  { name: 'apiserver-id', type: 'string', default: '', usage: 'the co-located kube-apiserver\'s ID, source of the apiserver_id_hash metric label', defaultText: 'computed from the hostname as kube-apiserver does' },
  { name: 'max-request-body-bytes', type: 'int', default: defaultAdmissionServerLimits.maxBodyBytes, usage: 'largest admission request body accepted (after gunzip), larger gets 413: two objects of kube-apiserver\'s 3 MiB request limit (an UPDATE carries object and oldObject) and 1 MiB for the rest' },
  { name: 'request-header-timeout', type: 'duration', default: formatMs(defaultAdmissionServerLimits.headersTimeoutMs), usage: 'time a connection has to send a request\'s headers (408 after); shorter than the webhook timeoutSeconds the apiserver gives a call' },
  { name: 'request-body-timeout', type: 'duration', default: formatMs(defaultAdmissionServerLimits.requestTimeoutMs), usage: 'time a request has to arrive in full, body included, from its first byte (408 after); at least --request-header-timeout' },
  { name: 'reload-interval', type: 'duration', default: '1m', usage: 'polling fallback period for manifest directories (and --registration-file)' },
  { name: 'workers', type: 'int', default: defaultPoolThreads(), usage: 'policy evaluation worker threads; 0 evaluates on the main thread', defaultText: `CPUs - 1, at least 1: ${defaultPoolThreads()} here` },
  { name: 'worker-max-old-space-size', type: 'int', default: defaultWorkerMaxOldSpaceMb, usage: 'MiB of old-generation heap each policy worker may use; a worker reaching it is replaced and its requests are answered by their failure policy (the main thread\'s own limit is node\'s --max-old-space-size, in NODE_OPTIONS)' },
  { name: 'registration-file', type: 'string', default: '', usage: 'the registration kube-apiserver uses (as printed by `registration`), watched like the manifests: at every reload and every change of it, log, and count in static_admissiond_registration_uncovered_objects and static_admissiond_registration_excess_rules, the loaded objects that can match requests it does not send and the requests it sends that no loaded object can match' },
  { name: 'write-registration', type: 'string', default: '', usage: 'kube-apiserver 1.36+: keep a static registration in DIR/validating and DIR/mutating (the apiserver\'s ValidatingAdmissionWebhook and MutatingAdmissionWebhook staticManifestsDir) in step with the loaded manifests, rewritten atomically after each good reload only' },
  { name: 'registration-url', type: 'string', default: '', usage: 'with --write-registration: the URL the apiserver calls', defaultText: 'https://<bind-address>:<secure-port>' },
  { name: 'registration-ca-file', type: 'string', default: '', usage: 'with --write-registration: PEM CA bundle that verifies the serving certificate', defaultText: 'the --dev CA' },
  { name: 'include-system-namespaces', type: 'boolean', default: false, usage: 'with --write-registration: send kube-system and kube-node-lease too' },
  { name: 'shadow-admission-config', type: 'string', default: '', usage: 'a candidate AdmissionConfiguration whose policies are loaded and watched beside the enforced ones and decided on every answered request, after the answer went out: differences are counted in static_admissiond_shadow_decisions_total and logged, answers never change' },
  authorizationFlag,
  { name: 'logging-format', type: 'string', default: 'text', usage: 'log format on stderr: text (klog) or json' },
  { name: 'v', short: 'v', type: 'int', default: 0, usage: 'log verbosity' },
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];
