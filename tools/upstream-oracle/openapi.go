package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilopenapi "k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/spec3"
	openapiutil "k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// The MutatingAdmissionPolicy plugin takes its schemas from the apiserver's own /openapi/v3 through the loopback
// client (mutating/plugin.go: patch.NewTypeConverterManager(nil, client.Discovery().OpenAPIV3())). kube-apiserver
// builds those documents from its generated definitions with the config in k8s.io/kubernetes
// pkg/controlplane/apiserver/config.go; openAPIDocuments builds the same per group-version documents, so the
// plugin's type converters are the ones a 1.36 apiserver has. upstream's tests use client-go's openapitest files
// instead, which hold only a few older groups.

type openAPIDocuments struct {
	once  sync.Once
	err   error
	build func(names ...string) (map[string]*spec.Schema, error)
	// objectMetaRef is the $ref under which the documents carry ObjectMeta.
	objectMetaRef string
	byGV          map[schema.GroupVersion][]string // canonical type names of each group-version's kinds
	mu            sync.Mutex
	cached        map[schema.GroupVersion][]byte
}

var builtinOpenAPI = &openAPIDocuments{}

func (d *openAPIDocuments) init() error {
	d.once.Do(func() {
		config := genericapiserver.DefaultOpenAPIV3Config(
			utilopenapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions),
			openapinamer.NewDefinitionNamer(legacyscheme.Scheme))
		definitions := config.GetDefinitions(func(path string) spec.Ref { return spec.Ref{} })
		d.build = func(names ...string) (map[string]*spec.Schema, error) {
			return builder3.BuildOpenAPIDefinitionsForResources(config, names...)
		}
		objectMetaName, _ := config.GetDefinitionName(metav1.ObjectMeta{}.OpenAPIModelName())
		d.objectMetaRef = "#/components/schemas/" + objectMetaName
		d.byGV = map[schema.GroupVersion][]string{}
		for gvk := range legacyscheme.Scheme.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal {
				continue
			}
			obj, err := legacyscheme.Scheme.New(gvk)
			if err != nil {
				continue
			}
			name := openapiutil.GetCanonicalTypeName(obj)
			if _, ok := definitions[name]; ok {
				d.byGV[gvk.GroupVersion()] = append(d.byGV[gvk.GroupVersion()], name)
			}
		}
		for gv := range d.byGV {
			sort.Strings(d.byGV[gv])
			d.byGV[gv] = compactStrings(d.byGV[gv])
		}
		d.cached = map[schema.GroupVersion][]byte{}
	})
	return d.err
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// document returns the /openapi/v3 document of gv: the built-in one, or for a group-version legacyscheme does not
// know, the one a CustomResourceDefinition with an open schema (x-kubernetes-preserve-unknown-fields: true at the
// root) publishes for kind.
func (d *openAPIDocuments) document(gv schema.GroupVersion, customKinds []string) ([]byte, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	names, builtin := d.byGV[gv]
	if builtin {
		d.mu.Lock()
		doc, ok := d.cached[gv]
		d.mu.Unlock()
		if ok {
			return doc, nil
		}
	} else {
		names = []string{metav1.ObjectMeta{}.OpenAPIModelName()}
	}
	schemas, err := d.build(names...)
	if err != nil {
		return nil, err
	}
	if !builtin {
		for _, kind := range customKinds {
			schemas[customSchemaName(gv, kind)] = customResourceSchema(gv.WithKind(kind), d.objectMetaRef)
		}
	}
	openAPI := &spec3.OpenAPI{Version: "3.0.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "v1.36.3"}},
		Paths: &spec3.Paths{}, Components: &spec3.Components{Schemas: schemas}}
	doc, err := json.Marshal(openAPI)
	if err != nil {
		return nil, err
	}
	if builtin {
		d.mu.Lock()
		d.cached[gv] = doc
		d.mu.Unlock()
	}
	return doc, nil
}

func customSchemaName(gv schema.GroupVersion, kind string) string {
	parts := strings.Split(gv.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(append(parts, gv.Version, kind), ".")
}

// customResourceSchema is the published schema of a custom resource whose CRD declares only
// `type: object, x-kubernetes-preserve-unknown-fields: true`: apiVersion, kind and a typed metadata, everything else
// open (k8s.io/apiextensions-apiserver pkg/controller/openapi/builder adds the three standard properties).
func customResourceSchema(gvk schema.GroupVersionKind, objectMetaRef string) *spec.Schema {
	s := &spec.Schema{}
	s.Type = []string{"object"}
	s.Properties = map[string]spec.Schema{
		"apiVersion": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
		"kind":       {SchemaProps: spec.SchemaProps{Type: []string{"string"}}},
		"metadata": {SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{{SchemaProps: spec.SchemaProps{
			Ref: spec.MustCreateRef(objectMetaRef)}}}}},
	}
	s.Extensions = spec.Extensions{
		"x-kubernetes-preserve-unknown-fields": true,
		"x-kubernetes-group-version-kind": []interface{}{
			map[string]interface{}{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
		},
	}
	return s
}

// openAPIClient serves the documents: every built-in group-version, plus the custom ones this plugin was built for.
type openAPIClient struct {
	custom map[schema.GroupVersion][]string
	// served is closed once the plugin's type-converter manager has been handed the paths.
	served     chan struct{}
	servedOnce sync.Once
}

func (c *openAPIClient) Paths() (map[string]openapi.GroupVersion, error) {
	defer c.servedOnce.Do(func() { close(c.served) })
	if err := builtinOpenAPI.init(); err != nil {
		return nil, err
	}
	paths := map[string]openapi.GroupVersion{}
	add := func(gv schema.GroupVersion, kinds []string) {
		path := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			path = "api/" + gv.Version
		}
		paths[path] = openAPIGroupVersion{gv: gv, kinds: kinds, url: "/openapi/v3/" + path + "?hash=" + strings.Join(kinds, ",")}
	}
	for gv := range builtinOpenAPI.byGV {
		add(gv, nil)
	}
	for gv, kinds := range c.custom {
		add(gv, kinds)
	}
	return paths, nil
}

type openAPIGroupVersion struct {
	gv    schema.GroupVersion
	kinds []string
	url   string
}

func (g openAPIGroupVersion) Schema(contentType string) ([]byte, error) {
	if contentType != runtime.ContentTypeJSON {
		return nil, fmt.Errorf("only %s is served", runtime.ContentTypeJSON)
	}
	return builtinOpenAPI.document(g.gv, g.kinds)
}

func (g openAPIGroupVersion) ServerRelativeURL() string { return g.url }

type discoveryWithOpenAPI struct {
	discovery.DiscoveryInterface
	openAPI openapi.Client
}

func (d discoveryWithOpenAPI) OpenAPIV3() openapi.Client { return d.openAPI }

type clientsetWithOpenAPI struct {
	*fake.Clientset
	discovery discovery.DiscoveryInterface
}

func (c *clientsetWithOpenAPI) Discovery() discovery.DiscoveryInterface { return c.discovery }

func withOpenAPI(c *fake.Clientset, openAPI *openAPIClient) kubernetes.Interface {
	return &clientsetWithOpenAPI{Clientset: c, discovery: discoveryWithOpenAPI{DiscoveryInterface: c.Discovery(), openAPI: openAPI}}
}

func newOpenAPIClient(custom map[schema.GroupVersion][]string) *openAPIClient {
	return &openAPIClient{custom: custom, served: make(chan struct{})}
}
