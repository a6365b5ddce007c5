package main

import (
	"fmt"

	policyloader "k8s.io/kubernetes/pkg/admission/plugin/policy/manifest/loader"
	webhookloader "k8s.io/kubernetes/pkg/admission/plugin/webhook/manifest/loader"
)

// loadResult is what one plugin's manifest loader produced: the objects by kind, in load order, and the content hash.
type loadResult struct {
	hash  string
	names map[string][]string
}

// loadManifests runs the loader kube-apiserver 1.36 wires for plugin: k8s.io/kubernetes
// pkg/kubeapiserver/admission/initializer.go hands these four k8s.io/kubernetes loaders (each wrapping the generic
// k8s.io/apiserver one with the kube-apiserver scheme, defaulting and API validation) to the plugins.
func loadManifests(plugin, dir string) (*loadResult, error) {
	res := &loadResult{names: map[string][]string{}}
	add := func(kind, name string) { res.names[kind] = append(res.names[kind], name) }
	switch plugin {
	case "ValidatingAdmissionPolicy":
		m, err := policyloader.LoadValidatingManifestsFromDirectory(dir)
		if err != nil {
			return nil, err
		}
		res.hash = m.Hash
		for _, p := range m.Policies {
			add("ValidatingAdmissionPolicy", p.Name)
		}
		for _, b := range m.Bindings {
			add("ValidatingAdmissionPolicyBinding", b.Name)
		}
	case "MutatingAdmissionPolicy":
		m, err := policyloader.LoadMutatingManifestsFromDirectory(dir)
		if err != nil {
			return nil, err
		}
		res.hash = m.Hash
		for _, p := range m.Policies {
			add("MutatingAdmissionPolicy", p.Name)
		}
		for _, b := range m.Bindings {
			add("MutatingAdmissionPolicyBinding", b.Name)
		}
	case "ValidatingAdmissionWebhook":
		m, err := webhookloader.LoadValidatingManifests(dir)
		if err != nil {
			return nil, err
		}
		res.hash = m.Hash
		for _, c := range m.Configurations {
			add("ValidatingWebhookConfiguration", c.Name)
		}
	case "MutatingAdmissionWebhook":
		m, err := webhookloader.LoadMutatingManifests(dir)
		if err != nil {
			return nil, err
		}
		res.hash = m.Hash
		for _, c := range m.Configurations {
			add("MutatingWebhookConfiguration", c.Name)
		}
	default:
		return nil, errUnknownPlugin(plugin)
	}
	return res, nil
}

// unknownPluginError is the caller's mistake, not a loader outcome, so it becomes an oracleError.
type unknownPluginError string

func (e unknownPluginError) Error() string {
	return fmt.Sprintf("unknown plugin %q (want ValidatingAdmissionPolicy, MutatingAdmissionPolicy, ValidatingAdmissionWebhook or MutatingAdmissionWebhook)", string(e))
}

func errUnknownPlugin(plugin string) error { return unknownPluginError(plugin) }

func (o *oracle) load(req request) (answer, error) {
	if req.Dir == "" {
		return nil, fmt.Errorf("load needs dir")
	}
	res, err := loadManifests(req.Plugin, req.Dir)
	if err != nil {
		if _, unknown := err.(unknownPluginError); unknown {
			return nil, err
		}
		return answer{"ok": false, "error": err.Error()}, nil
	}
	counts := map[string]int{}
	for kind, names := range res.names {
		counts[kind] = len(names)
	}
	return answer{"ok": true, "hash": res.hash, "counts": counts, "names": res.names}, nil
}
