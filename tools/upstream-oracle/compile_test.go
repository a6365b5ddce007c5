package main

import (
	"strings"
	"testing"
)

// upstream: k8s.io/kubernetes pkg/apis/admissionregistration/validation/validation.go (expressions compiled with the
// StoredExpressions environment, errors as field.Invalid on the expression's path) and k8s.io/apiserver
// pkg/cel/environment/base.go (the HomogeneousAggregateLiterals validator that refuses a list mixing string and dyn).
func TestCompile(t *testing.T) {
	policy := func(expression string) map[string]any {
		return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": "p"},
			"spec": map[string]any{
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{""},
					"apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"pods"}}}},
				"validations": []any{map[string]any{"expression": expression}}}}
	}
	answers := ask(t,
		map[string]any{"id": 1, "op": "compile", "object": policy("object.metadata.name != ''")},
		map[string]any{"id": 2, "op": "compile", "object": policy("['a', dyn(1)].size() > 0")},
		map[string]any{"id": 3, "op": "compile", "object": map[string]any{"apiVersion": "admissionregistration.k8s.io/v1",
			"kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "p"}, "spec": map[string]any{"bogus": 1}}},
	)
	if errs := answers["1"]["errors"].([]any); len(errs) != 0 {
		t.Errorf("valid policy: %v", errs)
	}
	errs := answers["2"]["errors"].([]any)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].(string), `spec.validations[0].expression: Invalid value: "['a', dyn(1)].size() > 0": compilation failed: ERROR: <input>:1:10: expected type 'string' but found 'dyn'`) {
		t.Errorf("mixed list literal: %v", errs)
	}
	if msg, _ := answers["3"]["oracleError"].(string); !strings.Contains(msg, `unknown field "spec.bogus"`) {
		t.Errorf("strict decoding: %v", answers["3"])
	}
}
