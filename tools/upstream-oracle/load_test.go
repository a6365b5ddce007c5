package main

import (
	"strings"
	"testing"
)

const vapFixture = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-cm.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "configmaps need a team"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-cm.static.k8s.io}
spec: {policyName: deny-cm.static.k8s.io, validationActions: [Deny]}
`

// upstream: k8s.io/kubernetes pkg/admission/plugin/policy/manifest/loader/validating_loader_test.go (valid policy and
// binding; a binding naming a policy that is not in the directory; a name without the static suffix) and
// k8s.io/apiserver pkg/admission/plugin/policy/manifest/loader/loader.go (the messages).
func TestLoad(t *testing.T) {
	good := manifestDir(t, map[string]string{"a.yaml": vapFixture})
	dangling := manifestDir(t, map[string]string{"b.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b.static.k8s.io}
spec: {policyName: missing.static.k8s.io, validationActions: [Deny]}
`})
	unsuffixed := manifestDir(t, map[string]string{"c.yaml": strings.ReplaceAll(vapFixture, "deny-cm.static.k8s.io", "deny-cm")})
	empty := t.TempDir()
	answers := ask(t,
		map[string]any{"id": 1, "op": "load", "plugin": "ValidatingAdmissionPolicy", "dir": good},
		map[string]any{"id": 2, "op": "load", "plugin": "ValidatingAdmissionPolicy", "dir": dangling},
		map[string]any{"id": 3, "op": "load", "plugin": "ValidatingAdmissionPolicy", "dir": unsuffixed},
		map[string]any{"id": 4, "op": "load", "plugin": "MutatingAdmissionWebhook", "dir": empty},
		map[string]any{"id": 5, "op": "load", "plugin": "NoSuchPlugin", "dir": empty},
	)
	if a := answers["1"]; a["ok"] != true || !strings.HasPrefix(a["hash"].(string), "sha256:") ||
		at(t, a, "counts", "ValidatingAdmissionPolicyBinding") != float64(1) {
		t.Errorf("good directory: %v", a)
	}
	want := `binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory`
	if a := answers["2"]; a["ok"] != false || !strings.Contains(a["error"].(string), want) {
		t.Errorf("dangling binding: %v", a)
	}
	if a := answers["3"]; a["ok"] != false || !strings.Contains(a["error"].(string), "must have a name ending with") {
		t.Errorf("unsuffixed name: %v", a)
	}
	if a := answers["4"]; a["ok"] != true || a["hash"] != "" {
		t.Errorf("empty directory: %v", a)
	}
	if a := answers["5"]; a["oracleError"] == nil {
		t.Errorf("unknown plugin must be an oracleError: %v", a)
	}
}
