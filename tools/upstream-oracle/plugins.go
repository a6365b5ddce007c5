package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	kubeapiserveradmission "k8s.io/kubernetes/pkg/kubeapiserver/admission"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"
)

// apiServerID labels the plugins' metrics only; nothing a caller sees depends on it.
const apiServerID = "upstream-oracle"

// policyPlugin is one admission plugin as kube-apiserver builds it for one staticManifestsDir: the plugin from
// upstream's registry, initialised by the same initializers, wrapped in the same chain and reinvocation handler.
type policyPlugin struct {
	handler    admission.Interface
	hash       string
	custom     map[schema.GroupVersion][]string // custom kinds the plugin's OpenAPI documents describe
	namespaces *namespaceLister
	openAPI    *openAPIClient
	stop       chan struct{}
	users      int  // requests holding the plugin (guarded by the cache's lock)
	dropped    bool // out of the cache: stopped when its last user releases it
}

// namespaceLister answers the plugin's namespace look-ups with the namespace object of the request being decided, so
// each request sees exactly the namespace the caller gave (an informer would lag behind).
type namespaceLister struct {
	mu        sync.Mutex
	namespace *corev1.Namespace
}

func (l *namespaceLister) set(ns *corev1.Namespace) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.namespace = ns
}

func (l *namespaceLister) List(selector labels.Selector) ([]*corev1.Namespace, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.namespace != nil && selector.Matches(labels.Set(l.namespace.Labels)) {
		return []*corev1.Namespace{l.namespace.DeepCopy()}, nil
	}
	return nil, nil
}

func (l *namespaceLister) Get(name string) (*corev1.Namespace, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.namespace != nil && l.namespace.Name == name {
		return l.namespace.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

var _ corev1listers.NamespaceLister = &namespaceLister{}

// allowAll stands in for the apiserver's authorizer (see README: authorizer checks are not decided by the oracle).
type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// pluginConfig is the plugin's section of an AdmissionConfiguration, as kube-apiserver hands it to the plugin factory.
type pluginConfig struct{ dir string }

func (c pluginConfig) ConfigFor(pluginName string) (io.Reader, error) {
	kind := map[string]string{
		validating.PluginName: "ValidatingAdmissionPolicyConfiguration",
		mutating.PluginName:   "MutatingAdmissionPolicyConfiguration",
	}[pluginName]
	if kind == "" {
		return nil, fmt.Errorf("no configuration for plugin %q", pluginName)
	}
	return bytes.NewBufferString(fmt.Sprintf("apiVersion: apiserver.config.k8s.io/v1\nkind: %s\nstaticManifestsDir: %q\n", kind, c.dir)), nil
}

// oracleInitializer supplies what kube-apiserver's own initializers would: the excluded resources
// (k8s.io/kubernetes pkg/controlplane/apiserver/admission/config.go), the apiserver ID, and a matcher whose namespace
// lister is the request's namespace.
type oracleInitializer struct {
	namespaces corev1listers.NamespaceLister
	client     *fake.Clientset
}

func (i oracleInitializer) Initialize(plugin admission.Interface) {
	if wants, ok := plugin.(initializer.WantsExcludedAdmissionResources); ok {
		wants.SetExcludedAdmissionResources(exclusion.Excluded())
	}
	if wants, ok := plugin.(initializer.WantsAPIServerID); ok {
		wants.SetAPIServerID(apiServerID)
	}
	if wants, ok := plugin.(interface{ SetMatcher(*matching.Matcher) }); ok {
		wants.SetMatcher(matching.NewMatcher(i.namespaces, i.client))
	}
}

func newPolicyPlugin(name, dir, hash string, custom map[schema.GroupVersion][]string) (*policyPlugin, error) {
	registry := admission.NewPlugins()
	validating.Register(registry)
	mutating.Register(registry)

	stop := make(chan struct{})
	client := fake.NewSimpleClientset()
	openAPI := newOpenAPIClient(custom)
	clientWithOpenAPI := withOpenAPI(client, openAPI)
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	// The namespace informer gates the plugin's readiness; register it before the factory starts.
	informerFactory.Core().V1().Namespaces().Informer()
	namespaces := &namespaceLister{}
	dynamicClient := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	initializers := admission.PluginInitializers{
		initializer.New(clientWithOpenAPI, dynamicClient, informerFactory, allowAll{}, utilfeature.DefaultFeatureGate,
			compatibility.DefaultBuildEffectiveVersion(), stop, testrestmapper.TestOnlyStaticRESTMapper(legacyscheme.Scheme)),
		kubeapiserveradmission.NewPluginInitializer(),
		oracleInitializer{namespaces: namespaces, client: client},
	}
	// kube-apiserver's handlers wrap the whole chain in admission.WithAudit (k8s.io/apiserver pkg/endpoints/handlers/
	// create.go), which moves the annotations plugins record into the request's audit event.
	handler, err := registry.NewFromPlugins([]string{name}, pluginConfig{dir: dir}, initializers, nil)
	if err != nil {
		close(stop)
		return nil, err
	}
	informerFactory.Start(stop)
	if !cache.WaitForCacheSync(stop, informerFactory.Core().V1().Namespaces().Informer().HasSynced) {
		close(stop)
		return nil, fmt.Errorf("informers did not sync")
	}
	return &policyPlugin{handler: admission.WithAudit(handler), hash: hash, custom: custom, namespaces: namespaces, openAPI: openAPI, stop: stop}, nil
}

func (p *policyPlugin) close() { close(p.stop) }
