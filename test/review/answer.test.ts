// The answer's bytes with a patch are written around the base64 text directly (lib/review/answer.ts withPatch); they
// must equal JSON.stringify of the whole envelope, the encoder this replaced, byte for byte.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdmissionResponse } from '../../lib/api/admission.js';
import { encodeAdmissionReviewResponse } from '../../lib/review/answer.js';

/** The envelope as JSON.stringify writes it (the encoder before the direct write). */
function reference(apiVersion: string, uid: string, r: AdmissionResponse): string {
  const out: AdmissionResponse = { uid, allowed: r.allowed === true };
  if (r.status) out.status = r.status;
  if (r.warnings && r.warnings.length > 0) out.warnings = r.warnings;
  if (r.auditAnnotations && Object.keys(r.auditAnnotations).length > 0) out.auditAnnotations = r.auditAnnotations;
  if (r.patch) {
    out.patch = r.patch;
    out.patchType = r.patchType || 'JSONPatch';
  }
  return JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: out });
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('encodeAdmissionReviewResponse with a patch', () => {
  const patches = [
    '', 'W10=', b64('[{"op":"add","path":"/a","value":1}]'), b64('x'), b64('xy'),
    b64(JSON.stringify([{ op: 'add', path: '/metadata/labels/ünï', value: 'line\u2028sep\u2029 "q" \\ 😀 \u0000' }])),
    b64(JSON.stringify([{ op: 'replace', path: '/spec', value: { big: 'z'.repeat(70_000) } }])),
    // not base64: written by JSON.stringify, escapes and all
    'not "base64" \u2028 ü', 'W10=\n', 'a/b+c===',
  ];
  const extras: AdmissionResponse[] = [
    {},
    { warnings: ['w1', 'ü \u2028 "quoted"'], auditAnnotations: { 'a.example/x': 'ünï \u2029', b: '' } },
    { status: { code: 200, message: 'é\u2028' }, warnings: [], auditAnnotations: {} },
    { patchType: 'JSONPatch' },
    { patchType: 'Other"type\u2028' },
  ];
  test('bytes equal JSON.stringify of the envelope (unicode, U+2028, empty patch, warnings, audit annotations)', () => {
    let cases = 0;
    for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
      for (const uid of ['u-1', 'ü\u2028"uid"']) {
        for (const patch of patches) {
          for (const extra of extras) {
            for (const allowed of [true, false, undefined]) {
              const response: AdmissionResponse = { ...extra, patch, ...(allowed === undefined ? {} : { allowed }) };
              const body = encodeAdmissionReviewResponse({ apiVersion: apiVersion as 'admission.k8s.io/v1', request: { uid } as never }, response);
              assert.ok(Buffer.isBuffer(body));
              assert.equal(body.toString('hex'), Buffer.from(reference(apiVersion, uid, response)).toString('hex'), `${apiVersion} ${uid} ${patch.slice(0, 40)} ${JSON.stringify(extra)}`);
              cases++;
            }
          }
        }
      }
    }
    assert.equal(cases, 2 * 2 * patches.length * extras.length * 3);
  });
});
