package main

import (
	"strings"
	"testing"
)

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go and validator.go (Deny becomes a
// StatusError naming policy and binding, 422 Invalid when the validation gives no reason; Warn a warning; Audit the
// validation_failure annotation) and
// pkg/admission/plugin/policy/validating/admission_test.go (the same outcomes through the plugin).
func TestValidate(t *testing.T) {
	deny := manifestDir(t, map[string]string{"a.yaml": vapFixture})
	warnAudit := manifestDir(t, map[string]string{"a.yaml": strings.ReplaceAll(vapFixture, "validationActions: [Deny]", "validationActions: [Warn, Audit]") + `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: annotate.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  auditAnnotations: [{key: ns-team, valueExpression: "namespaceObject.metadata.labels.team"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: annotate.static.k8s.io}
spec: {policyName: annotate.static.k8s.io, validationActions: [Audit]}
`})
	ns := namespaceObject("apps", map[string]any{"team": "blue"})
	answers := ask(t,
		map[string]any{"id": 1, "op": "validate", "dir": deny, "review": configMapReview(t, "apps", nil), "namespace": ns},
		map[string]any{"id": 2, "op": "validate", "dir": deny, "review": configMapReview(t, "apps", map[string]any{"team": "x"}), "namespace": ns},
		map[string]any{"id": 3, "op": "validate", "dir": warnAudit, "review": configMapReview(t, "apps", nil), "namespace": ns},
	)
	denied := answers["1"]
	wantMessage := `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'deny-cm.static.k8s.io' with binding 'deny-cm.static.k8s.io' denied request: configmaps need a team`
	if denied["allowed"] != false || at(t, denied, "status", "code") != float64(422) ||
		at(t, denied, "status", "reason") != "Invalid" || at(t, denied, "status", "message") != wantMessage {
		t.Errorf("denied: %v", denied)
	}
	if a := answers["2"]; a["allowed"] != true || a["status"] != nil {
		t.Errorf("allowed: %v", a)
	}
	warned := answers["3"]
	warnings, _ := warned["warnings"].([]any)
	if warned["allowed"] != true || len(warnings) != 1 || !strings.Contains(warnings[0].(string), "configmaps need a team") {
		t.Errorf("warned: %v", warned)
	}
	if at(t, warned, "auditAnnotations", "annotate.static.k8s.io/ns-team") != "blue" ||
		!strings.Contains(at(t, warned, "auditAnnotations", "validation.policy.admission.k8s.io/validation_failure").(string), `"validationActions":["Warn","Audit"]`) {
		t.Errorf("audit annotations: %v", warned["auditAnnotations"])
	}
}
