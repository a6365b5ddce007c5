package main

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	admissionregistration "k8s.io/kubernetes/pkg/apis/admissionregistration"
	admissionregistrationinstall "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
)

// The scheme kube-apiserver's manifest loaders build (k8s.io/kubernetes pkg/admission/plugin/policy/manifest/loader/
// validating_loader.go): every admissionregistration version, decoded strictly.
var (
	admissionScheme = runtime.NewScheme()
	admissionCodecs = serializer.NewCodecFactory(admissionScheme, serializer.EnableStrict)
)

func init() {
	admissionregistrationinstall.Install(admissionScheme)
	admissionScheme.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})
}

// compile runs the API validation an admission configuration object meets at create time: decode, default, convert
// to the internal version, then k8s.io/kubernetes pkg/apis/admissionregistration/validation, which is where CEL
// expressions are compiled and their errors reported. (The REST strategy additionally refuses the .static.k8s.io
// name suffix for API objects; that rule is left out so static manifests can be asked about.)
func (o *oracle) compile(req request) (answer, error) {
	if len(req.Object) == 0 {
		return nil, fmt.Errorf("compile needs object")
	}
	versioned, _, err := admissionCodecs.UniversalDeserializer().Decode(req.Object, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	admissionScheme.Default(versioned)
	gvk := versioned.GetObjectKind().GroupVersionKind()
	internal, err := admissionScheme.ConvertToVersion(versioned, admissionregistration.SchemeGroupVersion)
	if err != nil {
		return nil, fmt.Errorf("converting %s to the internal version: %w", gvk, err)
	}
	var errs field.ErrorList
	switch obj := internal.(type) {
	case *admissionregistration.ValidatingAdmissionPolicy:
		errs = validation.ValidateValidatingAdmissionPolicy(obj)
	case *admissionregistration.ValidatingAdmissionPolicyBinding:
		errs = validation.ValidateValidatingAdmissionPolicyBinding(obj)
	case *admissionregistration.MutatingAdmissionPolicy:
		errs = validation.ValidateMutatingAdmissionPolicy(obj)
	case *admissionregistration.MutatingAdmissionPolicyBinding:
		errs = validation.ValidateMutatingAdmissionPolicyBinding(obj)
	case *admissionregistration.ValidatingWebhookConfiguration:
		errs = validation.ValidateValidatingWebhookConfiguration(obj)
	case *admissionregistration.MutatingWebhookConfiguration:
		errs = validation.ValidateMutatingWebhookConfiguration(obj)
	default:
		return nil, fmt.Errorf("compile does not take %s", gvk)
	}
	messages := make([]string, 0, len(errs))
	for _, e := range errs {
		messages = append(messages, e.Error())
	}
	return answer{"errors": messages}, nil
}
