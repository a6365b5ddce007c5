// Command api-versions prints, for admissionregistration.k8s.io's v1beta1 and v1alpha1, every struct type the
// static loader's kinds reach and each field's JSON name and Go type as encoding/json names it in an
// UnmarshalTypeError (reflect.Type.String() of the type decoded into: pointers dereferenced). The scheme decodes
// those versions strictly too, so their errors name their own packages (`v1beta1.FailurePolicyType`) and, where a
// version reuses another's type, that one (`v1.ReinvocationPolicyType` in v1alpha1).
// scripts/gen-version-schemas.mjs turns the output into lib/api/version-schemas.generated.ts.
//
// Usage (in tools/kind-schemas): go run ./cmd/api-versions
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"

	v1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	v1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type field struct {
	Name string `json:"name"`
	Go   string `json:"go"`
	// the field's type, as reflect names it (for fields v1 does not have)
	Type string `json:"type"`
}

type structType struct {
	Go     string  `json:"go"`
	Fields []field `json:"fields"`
}

func goName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.String()
}

func walk(t reflect.Type, out map[string]structType) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == reflect.TypeOf(metav1.ObjectMeta{}).PkgPath() {
		return
	}
	if _, seen := out[t.Name()]; seen {
		return
	}
	st := structType{Go: t.Name()}
	out[t.Name()] = st
	var fields []field
	var collect func(reflect.Type)
	collect = func(s reflect.Type) {
		for i := 0; i < s.NumField(); i++ {
			f := s.Field(i)
			tag := f.Tag.Get("json")
			name := strings.Split(tag, ",")[0]
			if f.Anonymous && name == "" {
				collect(f.Type)
				continue
			}
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields = append(fields, field{Name: name, Go: goName(f.Type), Type: f.Type.String()})
			walk(f.Type, out)
		}
	}
	collect(t)
	st.Fields = fields
	out[t.Name()] = st
}

func main() {
	versions := map[string][]any{
		"admissionregistration.k8s.io/v1beta1": {
			v1beta1.ValidatingAdmissionPolicy{}, v1beta1.ValidatingAdmissionPolicyList{},
			v1beta1.ValidatingAdmissionPolicyBinding{}, v1beta1.ValidatingAdmissionPolicyBindingList{},
			v1beta1.MutatingAdmissionPolicy{}, v1beta1.MutatingAdmissionPolicyList{},
			v1beta1.MutatingAdmissionPolicyBinding{}, v1beta1.MutatingAdmissionPolicyBindingList{},
			v1beta1.ValidatingWebhookConfiguration{}, v1beta1.ValidatingWebhookConfigurationList{},
			v1beta1.MutatingWebhookConfiguration{}, v1beta1.MutatingWebhookConfigurationList{},
		},
		"admissionregistration.k8s.io/v1alpha1": {
			v1alpha1.ValidatingAdmissionPolicy{}, v1alpha1.ValidatingAdmissionPolicyList{},
			v1alpha1.ValidatingAdmissionPolicyBinding{}, v1alpha1.ValidatingAdmissionPolicyBindingList{},
			v1alpha1.MutatingAdmissionPolicy{}, v1alpha1.MutatingAdmissionPolicyList{},
			v1alpha1.MutatingAdmissionPolicyBinding{}, v1alpha1.MutatingAdmissionPolicyBindingList{},
		},
	}
	result := map[string]map[string]structType{}
	for version, kinds := range versions {
		types := map[string]structType{}
		for _, k := range kinds {
			walk(reflect.TypeOf(k), types)
		}
		result[version] = types
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(result); err != nil {
		panic(err)
	}
}
