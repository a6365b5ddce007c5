package main

import (
	"context"
	"fmt"

	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
)

// validate decides a request with the ValidatingAdmissionPolicy plugin over a staticManifestsDir.
func (o *oracle) validate(req request) (answer, error) {
	review, ns, err := decisionInputs(req)
	if err != nil {
		return nil, err
	}
	plugin, err := o.plugins.get(validating.PluginName, req.Dir, nil)
	if err != nil {
		return nil, err
	}
	defer o.plugins.release(plugin)
	ar, err := newAdmissionRequest(review)
	if err != nil {
		return nil, err
	}
	plugin.namespaces.set(ns)
	validator, ok := plugin.handler.(admission.ValidationInterface)
	if !ok {
		return nil, fmt.Errorf("plugin %s does not validate", validating.PluginName)
	}
	objects := objectInterfaces()
	out := runInRequest(func(ctx context.Context) error {
		if !validator.Handles(ar.attributes.GetOperation()) {
			return nil
		}
		return validator.Validate(ctx, ar.attributes, objects)
	})
	return out.answer(), nil
}
