package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// schemaPending is the dispatcher's answer while its type-converter manager has not yet read the OpenAPI paths of a
// freshly built plugin (it reads them in the background at start, mutating/patch/typeconverter.go).
const schemaPending = "There can be a delay between when CustomResourceDefinitions are created and when they are available."

// mutate admits a request through the MutatingAdmissionPolicy plugin over a staticManifestsDir, with the
// apiserver's reinvocation, and answers with the object as admission left it, in the request's version.
func (o *oracle) mutate(req request) (answer, error) {
	review, ns, err := decisionInputs(req)
	if err != nil {
		return nil, err
	}
	kind := schema.GroupVersionKind{Group: review.Kind.Group, Version: review.Kind.Version, Kind: review.Kind.Kind}
	var custom *schema.GroupVersionKind
	if !legacyscheme.Scheme.Recognizes(kind) {
		custom = &kind
	}
	plugin, err := o.plugins.get(mutating.PluginName, req.Dir, custom)
	if err != nil {
		return nil, err
	}
	defer o.plugins.release(plugin)
	mutator, ok := plugin.handler.(admission.MutationInterface)
	if !ok {
		return nil, fmt.Errorf("plugin %s does not mutate", mutating.PluginName)
	}
	plugin.namespaces.set(ns)
	// The manager reads the paths in the background as the plugin starts: wait for that read, then allow it the
	// moment it takes to store them.
	select {
	case <-plugin.openAPI.served:
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("the plugin never read its OpenAPI paths")
	}
	deadline := time.Now().Add(time.Second)
	for {
		// Fresh attributes each try: admission mutates them in place.
		ar, err := newAdmissionRequest(review)
		if err != nil {
			return nil, err
		}
		objects := objectInterfaces()
		out := runInRequest(func(ctx context.Context) error {
			if !mutator.Handles(ar.attributes.GetOperation()) {
				return nil
			}
			return mutator.Admit(ctx, ar.attributes, objects)
		})
		if out.err != nil && apierrors.IsServiceUnavailable(out.err) && strings.Contains(out.err.Error(), schemaPending) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		result := out.answer()
		if out.err == nil {
			object, err := encodeObject(ar.attributes.GetObject(), ar.objectKind)
			if err != nil {
				return nil, err
			}
			result["object"] = object
		}
		return result, nil
	}
}

// encodeObject writes the admitted object in the version the caller sent it in, as the apiserver serialises it.
func encodeObject(obj runtime.Object, gvk schema.GroupVersionKind) (json.RawMessage, error) {
	if obj == nil {
		return json.RawMessage("null"), nil
	}
	if legacyscheme.Scheme.Recognizes(gvk) {
		versioned, err := legacyscheme.Scheme.ConvertToVersion(obj, gvk.GroupVersion())
		if err != nil {
			return nil, fmt.Errorf("converting the admitted object to %s: %w", gvk.GroupVersion(), err)
		}
		versioned.GetObjectKind().SetGroupVersionKind(gvk)
		obj = versioned
	}
	return json.Marshal(obj)
}
