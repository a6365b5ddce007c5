// The scheme's defaulting of flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration
// (kube-apiserver 1.36, after a MutatingAdmissionPolicy's mutation); expected objects are upstream-oracle's `mutate`
// answers for the objects given. A limited level's nominalConcurrencyShares (30) is stated from the source: the
// oracle decodes through the internal type, where an absent one is 0 before defaulting can see it.
// upstream: k8s.io/kubernetes pkg/apis/flowcontrol/v1/defaults.go SetDefaults_FlowSchemaSpec,
// SetDefaults_LimitedPriorityLevelConfiguration, SetDefaults_QueuingConfiguration, SetDefaults_ExemptPriorityLevelConfiguration
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const plc = (spec: Record<string, unknown>): { spec: Record<string, unknown> } =>
  defaulted({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'p' }, spec });

describe('flowcontrol.apiserver.k8s.io/v1', () => {
  it('FlowSchema: matchingPrecedence 1000 (also in place of 0)', () => {
    const fs = (spec: Record<string, unknown>): { spec: Record<string, unknown> } => defaulted({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'f' }, spec });
    assert.deepEqual(fs({ priorityLevelConfiguration: { name: 'p' } }).spec, { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 1000 });
    assert.equal(fs({ priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 0 }).spec['matchingPrecedence'], 1000);
  });

  it('PriorityLevelConfiguration: a limited level\'s shares 30, lendable 0, queuing 64 queues of 50, hand 8; an exempt one 0 and 0', () => {
    assert.deepEqual(plc({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }).spec, {
      type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } },
    });
    assert.deepEqual(plc({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }).spec, {
      type: 'Limited', limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: { type: 'Reject' } },
    });
    assert.deepEqual(plc({ type: 'Exempt', exempt: {} }).spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
  });
});
