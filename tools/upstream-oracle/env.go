package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The same API groups kube-apiserver installs into legacyscheme (k8s.io/kubernetes pkg/controlplane/
	// import_known_versions.go), so built-in objects decode, convert and default as they do there.
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"

	// Registers kube-apiserver's own feature gates (and their 1.36 defaults) into the default gate.
	_ "k8s.io/kubernetes/pkg/features"
)

// enableUpstreamDefaults turns on the gates a 1.36 apiserver with staticManifestsDir runs with: the KEP-5793 loader is
// alpha (off by default) and must be enabled for staticManifestsDir to be accepted at all; everything else keeps its
// 1.36 default (MutatingAdmissionPolicy is GA and on).
func enableUpstreamDefaults() error {
	gate := fmt.Sprintf("%s=true", genericfeatures.ManifestBasedAdmissionControlConfig)
	if err := utilfeature.DefaultMutableFeatureGate.Set(gate); err != nil {
		return fmt.Errorf("setting feature gate %s: %w", gate, err)
	}
	return nil
}

// objectInterfaces is what the apiserver's handlers pass to admission for built-in kinds: legacyscheme converts,
// defaults and creates them. Custom (unstructured) objects only pass through it unconverted, as for CRDs.
func objectInterfaces() admission.ObjectInterfaces {
	s := legacyscheme.Scheme
	return &admission.RuntimeObjectInterfaces{ObjectCreater: s, ObjectTyper: s, ObjectDefaulter: s, ObjectConvertor: s, EquivalentResourceMapper: servedEquivalents}
}

// servedEquivalents is the part of kube-apiserver 1.36's equivalent-resource registry (filled by k8s.io/apiserver
// pkg/endpoints/installer.go RegisterKindFor, keyed by storage prefix: pkg/server/config.go) that can ever answer
// with more than the resource itself, for the API versions served by default (k8s.io/kubernetes pkg/controlplane/
// instance.go DefaultAPIResourceConfigSource: GA versions only). Two resources are served in more than one version
// there: horizontalpodautoscalers in autoscaling/v2 and v1 (one GroupResource; registered in the group's version
// priority, pkg/apis/autoscaling/install), and events in v1 and events.k8s.io/v1, which share the "events" storage
// (pkg/kubeapiserver/default_storage_factory_builder.go AddCohabitatingResources). Every other served resource has
// one version, for which the registry only ever returns the resource asked about, which matching skips.
var servedEquivalents = func() runtime.EquivalentResourceRegistry {
	registry := runtime.NewEquivalentResourceRegistryWithIdentity(func(gr schema.GroupResource) string {
		if gr.Resource == "events" && (gr.Group == "" || gr.Group == "events.k8s.io") {
			return "/events"
		}
		return ""
	})
	// legacy (core) is installed before the named groups (k8s.io/kubernetes pkg/controlplane/apiserver/apis.go InstallAPIs)
	registry.RegisterKindFor(schema.GroupVersionResource{Version: "v1", Resource: "events"}, "", schema.GroupVersionKind{Version: "v1", Kind: "Event"})
	for _, version := range []string{"v2", "v1"} {
		gvr := schema.GroupVersionResource{Group: "autoscaling", Version: version, Resource: "horizontalpodautoscalers"}
		gvk := schema.GroupVersionKind{Group: "autoscaling", Version: version, Kind: "HorizontalPodAutoscaler"}
		registry.RegisterKindFor(gvr, "", gvk)
		registry.RegisterKindFor(gvr, "status", gvk)
	}
	registry.RegisterKindFor(schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, "", schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"})
	return registry
}()
