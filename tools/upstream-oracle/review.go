package main

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// admissionRequest is an AdmissionReview's request turned back into what kube-apiserver's handler held when it called
// admission: attributes over internal objects for built-in kinds (unstructured ones for anything else), plus the
// version the caller's objects were written in, so answers can be given in it.
type admissionRequest struct {
	attributes admission.Attributes
	// objectKind is the kind request.object is written in (request.kind).
	objectKind schema.GroupVersionKind
	typed      bool
}

// decisionInputs reads what validate and mutate share: a directory, the review's request and the namespace object.
func decisionInputs(req request) (*admissionv1.AdmissionRequest, *corev1.Namespace, error) {
	if req.Dir == "" {
		return nil, nil, fmt.Errorf("%s needs dir", req.Op)
	}
	review, err := parseReview(req.Review)
	if err != nil {
		return nil, nil, err
	}
	ns, err := parseNamespace(req.Namespace)
	if err != nil {
		return nil, nil, err
	}
	return review, ns, nil
}

func parseReview(raw json.RawMessage) (*admissionv1.AdmissionRequest, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("review is missing")
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(raw, &review); err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	if review.Request == nil {
		return nil, fmt.Errorf("review has no request")
	}
	return review.Request, nil
}

func newAdmissionRequest(req *admissionv1.AdmissionRequest) (*admissionRequest, error) {
	kind := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	resource := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	subresource := req.SubResource
	typed := legacyscheme.Scheme.Recognizes(kind)
	// The apiserver's attributes carry the kind and resource the request was made to (requestKind); the review's
	// objects are in the webhook's matched version (kind). Internal objects are version-free, so built-in kinds can
	// take the request's own kind; custom objects stay in the one version the caller has them in.
	if typed && req.RequestKind != nil && req.RequestResource != nil {
		kind = schema.GroupVersionKind{Group: req.RequestKind.Group, Version: req.RequestKind.Version, Kind: req.RequestKind.Kind}
		resource = schema.GroupVersionResource{Group: req.RequestResource.Group, Version: req.RequestResource.Version, Resource: req.RequestResource.Resource}
		subresource = req.RequestSubResource
	}
	objectKind := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	object, err := decodeObject(req.Object.Raw, objectKind, typed)
	if err != nil {
		return nil, fmt.Errorf("request.object: %w", err)
	}
	oldObject, err := decodeObject(req.OldObject.Raw, objectKind, typed)
	if err != nil {
		return nil, fmt.Errorf("request.oldObject: %w", err)
	}
	options, err := decodeOptions(req.Options.Raw)
	if err != nil {
		return nil, fmt.Errorf("request.options: %w", err)
	}
	dryRun := req.DryRun != nil && *req.DryRun
	extra := map[string][]string{}
	for k, v := range req.UserInfo.Extra {
		extra[k] = []string(v)
	}
	userInfo := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra}
	attributes := admission.NewAttributesRecord(object, oldObject, kind, req.Namespace, req.Name, resource, subresource,
		admission.Operation(req.Operation), options, dryRun, userInfo)
	return &admissionRequest{attributes: attributes, objectKind: objectKind, typed: typed}, nil
}

// decodeObject returns nil for an absent object, an internal object for a kind legacyscheme knows (as the apiserver's
// handlers decode request bodies), and an unstructured one otherwise (as for custom resources).
func decodeObject(raw []byte, gvk schema.GroupVersionKind, typed bool) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if !typed {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			obj.SetGroupVersionKind(gvk)
		}
		return obj, nil
	}
	versioned, _, err := legacyscheme.Codecs.UniversalDeserializer().Decode(raw, &gvk, nil)
	if err != nil {
		return nil, err
	}
	internal, err := legacyscheme.Scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		// A kind with no internal version (none among built-ins today) is admitted as decoded.
		return versioned, nil
	}
	return internal, nil
}

// decodeOptions decodes request.options into the metav1 options type the apiserver's handler passes to admission.
func decodeOptions(raw []byte) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var typeMeta metav1.TypeMeta
	if err := json.Unmarshal(raw, &typeMeta); err != nil {
		return nil, err
	}
	var options runtime.Object
	switch typeMeta.Kind {
	case "CreateOptions":
		options = &metav1.CreateOptions{}
	case "UpdateOptions":
		options = &metav1.UpdateOptions{}
	case "PatchOptions":
		options = &metav1.PatchOptions{}
	case "DeleteOptions":
		options = &metav1.DeleteOptions{}
	default:
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		return obj, nil
	}
	if err := json.Unmarshal(raw, options); err != nil {
		return nil, err
	}
	return options, nil
}

// parseNamespace decodes the namespace object the lister is to return (nil: none).
func parseNamespace(raw json.RawMessage) (*corev1.Namespace, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	ns := &corev1.Namespace{}
	if err := json.Unmarshal(raw, ns); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	return ns, nil
}
