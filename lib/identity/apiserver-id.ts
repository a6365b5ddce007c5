// kube-apiserver's identity, computed as the apiserver computes its own (so this daemon's reload metrics carry the
// same apiserver_id_hash label as the apiserver beside it), and the hash label derived from it.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function base32NoPadding(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += base32Alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

function lengthPrefixed(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(body.length);
  return Buffer.concat([prefix, body]);
}

/** `apiserver-` + base32(sha256(u16len(host)‖host‖u16len("kube-apiserver")‖"kube-apiserver")[:16]), lowercase. */
export function apiServerIDForHost(host: string): string {
  const digest = createHash('sha256').update(lengthPrefixed(host)).update(lengthPrefixed('kube-apiserver')).digest();
  return `apiserver-${base32NoPadding(digest.subarray(0, 16))}`;
}

export function defaultAPIServerID(): string {
  return apiServerIDForHost(hostname());
}

/** The metric label: `sha256:<hex>` of the ID, or `""` when there is no ID. */
export function apiServerIDHash(id: string): string {
  return id === '' ? '' : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}
