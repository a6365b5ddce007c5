package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

// checkPolicies prints, as JSON lines, what upstream's TypeChecker puts in status.typeChecking for every
// ValidatingAdmissionPolicy in the files: {"file", "policy", "fieldRef", "warning"}. It is the reference the
// daemon's type-check warnings are compared with (test/cel/type-check-upstream.test.ts, the false-warning count).
func checkPolicies(mapper meta.RESTMapper, schemas resolver.SchemaResolver, files []string) error {
	checker := &validating.TypeChecker{SchemaResolver: schemas, RestMapper: mapper}
	out := json.NewEncoder(os.Stdout)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var policy admissionregistrationv1.ValidatingAdmissionPolicy
			if err := decoder.Decode(&policy); err == io.EOF {
				break
			} else if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			if policy.Kind != "ValidatingAdmissionPolicy" {
				continue
			}
			for _, w := range checker.Check(&policy) {
				if err := out.Encode(map[string]string{"file": file, "policy": policy.Name, "fieldRef": w.FieldRef, "warning": w.Warning}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
