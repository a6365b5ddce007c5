// core/v1 Event <-> events.k8s.io/v1 Event, as kube-apiserver converts through the internal core.Event.
//
// Upstream: kubernetes pkg/apis/events/v1/conversion.go (Convert_v1_Event_To_core_Event / Convert_core_Event_To_v1_Event:
// regarding <-> involvedObject, deprecatedSource <-> source, note <-> message, deprecatedFirstTimestamp /
// deprecatedLastTimestamp / deprecatedCount <-> firstTimestamp / lastTimestamp / count; the other fields by name,
// reportingController being core/v1's `reportingComponent`), with the JSON shapes of k8s.io/api core/v1 and
// events/v1 types.go: which fields are omitempty, which are structs Go always writes, zero times written as null.
import { int, isObject, present, setOmitEmpty, setPointer, str, struct, time } from './json.js';
import type { JsonObject } from './json.js';

/** core/v1 Event -> events.k8s.io/v1 Event */
export function eventCoreToEvents(e: JsonObject): JsonObject {
  const out: JsonObject = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: struct(e['metadata']) };
  out['eventTime'] = time(e['eventTime']);
  if (isObject(e['series'])) {
    // events/v1 EventSeries: count and lastObservedTime without omitempty
    out['series'] = { count: int(e['series']['count']), lastObservedTime: time(e['series']['lastObservedTime']) };
  }
  setOmitEmpty(out, 'reportingController', e['reportingComponent']);
  setOmitEmpty(out, 'reportingInstance', e['reportingInstance']);
  setOmitEmpty(out, 'action', e['action']);
  setOmitEmpty(out, 'reason', e['reason']);
  out['regarding'] = struct(e['involvedObject']);
  setPointer(out, 'related', e['related']);
  setOmitEmpty(out, 'note', e['message']);
  setOmitEmpty(out, 'type', e['type']);
  out['deprecatedSource'] = struct(e['source']);
  out['deprecatedFirstTimestamp'] = time(e['firstTimestamp']);
  out['deprecatedLastTimestamp'] = time(e['lastTimestamp']);
  setOmitEmpty(out, 'deprecatedCount', e['count']);
  return out;
}

/** events.k8s.io/v1 Event -> core/v1 Event */
export function eventEventsToCore(e: JsonObject): JsonObject {
  const out: JsonObject = { kind: 'Event', apiVersion: 'v1', metadata: struct(e['metadata']) };
  out['involvedObject'] = struct(e['regarding']);
  setOmitEmpty(out, 'reason', e['reason']);
  setOmitEmpty(out, 'message', e['note']);
  out['source'] = struct(e['deprecatedSource']);
  out['firstTimestamp'] = time(e['deprecatedFirstTimestamp']);
  out['lastTimestamp'] = time(e['deprecatedLastTimestamp']);
  setOmitEmpty(out, 'count', e['deprecatedCount']);
  setOmitEmpty(out, 'type', e['type']);
  out['eventTime'] = time(e['eventTime']);
  if (present(e['series'])) {
    // core/v1 EventSeries: count omitempty, lastObservedTime a struct (always written)
    const series: JsonObject = {};
    setOmitEmpty(series, 'count', struct(e['series'])['count']);
    series['lastObservedTime'] = time(struct(e['series'])['lastObservedTime']);
    out['series'] = series;
  }
  setOmitEmpty(out, 'action', e['action']);
  setPointer(out, 'related', e['related']);
  out['reportingComponent'] = str(e['reportingController']);
  out['reportingInstance'] = str(e['reportingInstance']);
  return out;
}
