package main

import (
	"strings"
	"testing"
)

const mapFixture = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps, endpoints]}
    - {apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "blue"}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team.static.k8s.io}
spec: {policyName: team.static.k8s.io}
`

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher.go (patch, convert, default) and
// patch/smd.go, whose typed merge refuses a field the kind's schema does not declare ("failed to convert patch object
// to typed object"), as in pkg/admission/plugin/policy/mutating/plugin_test.go.
func TestMutate(t *testing.T) {
	labels := manifestDir(t, map[string]string{"a.yaml": mapFixture})
	undeclared := manifestDir(t, map[string]string{"a.yaml": strings.Replace(mapFixture,
		`Object{metadata: Object.metadata{labels: {"team": "blue"}}}`, `Object{spec: Object.spec{x: 1}}`, 1)})
	endpoints := review(t, map[string]any{
		"kind":      map[string]any{"group": "", "version": "v1", "kind": "Endpoints"},
		"resource":  map[string]any{"group": "", "version": "v1", "resource": "endpoints"},
		"name":      "e1",
		"namespace": "apps",
		"object":    map[string]any{"apiVersion": "v1", "kind": "Endpoints", "metadata": map[string]any{"name": "e1", "namespace": "apps"}},
	})
	crontab := review(t, map[string]any{
		"kind":      map[string]any{"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
		"resource":  map[string]any{"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
		"name":      "c1",
		"namespace": "apps",
		"object": map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
			"metadata": map[string]any{"name": "c1", "namespace": "apps"}, "spec": map[string]any{"cronSpec": "* * * * *"}},
	})
	ns := namespaceObject("apps", nil)
	answers := ask(t,
		map[string]any{"id": 1, "op": "mutate", "dir": labels, "review": configMapReview(t, "apps", nil), "namespace": ns},
		map[string]any{"id": 2, "op": "mutate", "dir": undeclared, "review": endpoints, "namespace": ns},
		map[string]any{"id": 3, "op": "mutate", "dir": labels, "review": crontab, "namespace": ns},
		map[string]any{"id": 4, "op": "mutate", "dir": labels, "review": configMapReview(t, "apps", nil), "namespace": nil},
	)
	if a := answers["1"]; a["allowed"] != true || at(t, a, "object", "metadata", "labels", "team") != "blue" ||
		at(t, a, "object", "data", "k") != "v" {
		t.Errorf("apply configuration on a ConfigMap: %v", a)
	}
	refused := answers["2"]
	if refused["allowed"] != false || !strings.Contains(at(t, refused, "status", "message").(string),
		"failed to convert patch object to typed object: .spec: field not declared in schema") {
		t.Errorf("undeclared field on Endpoints: %v", refused)
	}
	if a := answers["3"]; a["allowed"] != true || at(t, a, "object", "metadata", "labels", "team") != "blue" ||
		at(t, a, "object", "spec", "cronSpec") != "* * * * *" {
		t.Errorf("custom resource: %v", a)
	}
	if a := answers["4"]; a["allowed"] != false || at(t, a, "status", "code") != float64(404) {
		t.Errorf("missing namespace: %v", a)
	}
}
