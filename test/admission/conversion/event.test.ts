// core/v1 Event <-> events.k8s.io/v1 Event. Upstream: kubernetes pkg/apis/events/v1/conversion.go
// (Convert_v1_Event_To_core_Event, Convert_core_Event_To_v1_Event) with the JSON shapes of k8s.io/api core/v1 and
// events/v1 types.go (reportingComponent in core/v1; deprecated* fields; zero times written as null).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { convertObject } from '../../../lib/admission/conversion/index.js';

const core = { group: '', version: 'v1', kind: 'Event' };
const events = { group: 'events.k8s.io', version: 'v1', kind: 'Event' };

const coreEvent = {
  kind: 'Event', apiVersion: 'v1',
  metadata: { name: 'e1', namespace: 'default', creationTimestamp: null },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u-1', apiVersion: 'v1' },
  reason: 'Started', message: 'Started container c',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05Z', count: 2, type: 'Normal',
  eventTime: null,
  series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' },
  action: 'Start',
  related: { kind: 'Node', name: 'node-1' },
  reportingComponent: 'kubelet', reportingInstance: 'node-1',
};

describe('Event core/v1 <-> events.k8s.io/v1', () => {
  it('core/v1 -> events.k8s.io/v1: the renamed fields', () => {
    assert.deepEqual(convertObject(coreEvent, core, events), {
      kind: 'Event', apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'e1', namespace: 'default', creationTimestamp: null },
      eventTime: null,
      series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' },
      reportingController: 'kubelet', reportingInstance: 'node-1', action: 'Start', reason: 'Started',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u-1', apiVersion: 'v1' },
      related: { kind: 'Node', name: 'node-1' },
      note: 'Started container c', type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:00:05Z', deprecatedCount: 2,
    });
  });

  it('round trip core -> events -> core is lossless', () => {
    assert.deepEqual(convertObject(convertObject(coreEvent, core, events), events, core), coreEvent);
  });

  it('events.k8s.io/v1 -> core/v1: reportingComponent/reportingInstance always written, empty structs and zero times kept', () => {
    const e = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'e2' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'c', reportingInstance: 'i', action: 'A', reason: 'R', regarding: {}, note: 'n', type: 'Warning', deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null };
    assert.deepEqual(convertObject(e, events, core), {
      kind: 'Event', apiVersion: 'v1', metadata: { name: 'e2' },
      involvedObject: {}, reason: 'R', message: 'n', source: {}, firstTimestamp: null, lastTimestamp: null, type: 'Warning',
      eventTime: '2026-01-01T00:00:00.000000Z', action: 'A', reportingComponent: 'c', reportingInstance: 'i',
    });
    const bare = convertObject({ ...e, reportingController: undefined, reportingInstance: undefined }, events, core) as Record<string, unknown>;
    assert.equal(bare['reportingComponent'], '');
    assert.equal(bare['reportingInstance'], '');
  });
});
