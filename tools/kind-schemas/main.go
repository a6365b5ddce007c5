// Command kind-schemas writes lib/cel/schemas/kinds.generated.json: the CEL types kube-apiserver 1.36's
// ValidatingAdmissionPolicy type checker gives `object` for every built-in kind, and the REST mapping it resolves
// matchConstraints with. It runs upstream's own code, as the kube-controller-manager's type checker does
// (cmd/kube-controller-manager/app/validatingadmissionpolicystatus.go): resolver.NewDefinitionsSchemaResolver over
// pkg/generated/openapi with the client-go and apiextensions schemes, common.SchemaDeclType(schema, true) per kind,
// and a discovery REST mapper over the 1.36.3 discovery documents (api/discovery, the resources 1.36 serves by
// default).
//
// Usage: go run . -discovery "$(go list -m -f '{{.Dir}}' k8s.io/kubernetes)/api/discovery" > ../../lib/cel/schemas/kinds.generated.json
//
// Output (compact, types shared): {"version", "resources": {"<group/version>": {"<resource>": ["<gvk>", ...]}}
// (what KindsFor gives, in its order; for the core group "v1" that is any group's, as KindsFor reads an empty group),
// "objects": [{"<field>": T, ...}], "kinds": {"<group/version>, Kind=<Kind>": T}} where T is "string", "int",
// "bool", "double", "bytes", "timestamp", "duration", "dyn" (int-or-string), an index into objects, or
// ["list", T] / ["map", T]. An object's "~" lists the properties upstream leaves out of the type (no CEL type:
// Quantity and the like), which only the MutatingAdmissionPolicy construction check reads (as dyn).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generated "k8s.io/kubernetes/pkg/generated/openapi"
)

type output struct {
	Version   string                         `json:"version"`
	Resources map[string]map[string][]string `json:"resources"`
	Objects   []map[string]any               `json:"objects"`
	Kinds     map[string]any                 `json:"kinds"`
}

type encoder struct {
	objects []map[string]any
	index   map[string]int
}

func (e *encoder) intern(fields map[string]any) int {
	key, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	if i, ok := e.index[string(key)]; ok {
		return i
	}
	e.objects = append(e.objects, fields)
	e.index[string(key)] = len(e.objects) - 1
	return len(e.objects) - 1
}

// encode walks the DeclType upstream built; s is the schema it was built from (for the properties it dropped).
func (e *encoder) encode(t *apiservercel.DeclType, s *spec.Schema) any {
	switch {
	case t.IsObject():
		fields := map[string]any{}
		props := map[string]spec.Schema{}
		var dropped []string
		for name, prop := range schemaProps(s) {
			if escaped, ok := apiservercel.Escape(name); ok {
				props[escaped] = prop
				if _, found := t.Fields[escaped]; !found {
					dropped = append(dropped, escaped)
				}
			}
		}
		for _, name := range sortedKeys(t.Fields) {
			f := t.Fields[name]
			var prop *spec.Schema
			if p, ok := props[name]; ok {
				prop = &p
			}
			fields[name] = e.encode(f.Type, prop)
		}
		if len(dropped) > 0 {
			sort.Strings(dropped)
			fields["~"] = dropped
		}
		return e.intern(fields)
	case t.IsList():
		return []any{"list", e.encode(t.ElemType, itemsOf(s))}
	case t.IsMap():
		return []any{"map", e.encode(t.ElemType, additionalOf(s))}
	}
	switch name := t.CelType().String(); name {
	case "string", "int", "bool", "double", "bytes", "dyn":
		return name
	case "google.protobuf.Timestamp":
		return "timestamp"
	case "google.protobuf.Duration":
		return "duration"
	default:
		panic(fmt.Sprintf("unexpected CEL type %q", name))
	}
}

// schemaProps gives the properties SchemaDeclType saw: a resource root (or embedded resource) with kind, apiVersion
// and metadata added as WithTypeAndObjectMeta adds them.
func schemaProps(s *spec.Schema) map[string]spec.Schema {
	if s == nil {
		return nil
	}
	return s.Properties
}

func itemsOf(s *spec.Schema) *spec.Schema {
	if s == nil || s.Items == nil {
		return nil
	}
	return s.Items.Schema
}

func additionalOf(s *spec.Schema) *spec.Schema {
	if s == nil || s.AdditionalProperties == nil {
		return nil
	}
	return s.AdditionalProperties.Schema
}

// discoveryGroups reads the discovery documents into what a discovery REST mapper is built from.
func discoveryGroups(dir string) ([]*restmapper.APIGroupResources, error) {
	byGroup := map[string]*restmapper.APIGroupResources{}
	var order []string
	add := func(group metav1.APIGroup) {
		if _, ok := byGroup[group.Name]; !ok {
			byGroup[group.Name] = &restmapper.APIGroupResources{Group: group, VersionedResources: map[string][]metav1.APIResource{}}
			order = append(order, group.Name)
		}
	}
	var core metav1.APIVersions
	if err := readJSON(filepath.Join(dir, "api.json"), &core); err != nil {
		return nil, err
	}
	coreGroup := metav1.APIGroup{Name: ""}
	for _, v := range core.Versions {
		coreGroup.Versions = append(coreGroup.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
	}
	coreGroup.PreferredVersion = coreGroup.Versions[0]
	add(coreGroup)
	var groups metav1.APIGroupList
	if err := readJSON(filepath.Join(dir, "apis.json"), &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		add(g)
	}
	for _, name := range order {
		g := byGroup[name]
		for _, v := range g.Group.Versions {
			file := "apis__" + name + "__" + v.Version + ".json"
			if name == "" {
				file = "api__" + v.Version + ".json"
			}
			var list metav1.APIResourceList
			if err := readJSON(filepath.Join(dir, file), &list); err != nil {
				return nil, err
			}
			g.VersionedResources[v.Version] = list.APIResources
		}
	}
	result := make([]*restmapper.APIGroupResources, 0, len(order))
	for _, name := range order {
		result = append(result, byGroup[name])
	}
	return result, nil
}

// sortedKeys: Go's map order is random; the output must not be.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func readJSON(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

func run() error {
	discovery := flag.String("discovery", "", "k8s.io/kubernetes' api/discovery directory")
	check := flag.Bool("check", false, "instead: print upstream's TypeChecker warnings for the ValidatingAdmissionPolicies in the YAML files named")
	flag.Parse()
	groups, err := discoveryGroups(*discovery)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	schemas := resolver.NewDefinitionsSchemaResolver(generated.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme)
	if *check {
		return checkPolicies(mapper, schemas, flag.Args())
	}
	out := output{Version: "v1.36.3", Resources: map[string]map[string][]string{}, Kinds: map[string]any{}}
	enc := &encoder{index: map[string]int{}}
	for _, g := range groups {
		for _, version := range sortedKeys(g.VersionedResources) {
			resources := g.VersionedResources[version]
			gv := schema.GroupVersion{Group: g.Group.Name, Version: version}
			for _, r := range resources {
				if strings.Contains(r.Name, "/") {
					continue
				}
				names := []string{r.Name}
				if r.SingularName != "" {
					names = append(names, r.SingularName)
				}
				for _, name := range names {
					// a rule's group "" is the core group, but KindsFor reads an empty group as any group
					for _, queried := range []schema.GroupVersion{gv, {Version: version}} {
						kinds, err := mapper.KindsFor(queried.WithResource(name))
						if err != nil || len(kinds) == 0 {
							continue
						}
						if out.Resources[queried.String()] == nil {
							out.Resources[queried.String()] = map[string][]string{}
						}
						resolved := make([]string, 0, len(kinds))
						for _, gvk := range kinds {
							resolved = append(resolved, gvk.String())
							if err := addKind(&out, enc, schemas, gvk); err != nil {
								return err
							}
						}
						out.Resources[queried.String()][name] = resolved
					}
				}
			}
		}
	}
	out.Objects = enc.objects
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(data, '\n'))
	return err
}

// addKind records the type upstream's checker gives a kind, unless done or it has no schema (skipped upstream).
func addKind(out *output, enc *encoder, schemas *resolver.DefinitionsSchemaResolver, gvk schema.GroupVersionKind) error {
	if _, done := out.Kinds[gvk.String()]; done {
		return nil
	}
	s, err := schemas.ResolveSchema(gvk)
	if errors.Is(err, resolver.ErrSchemaNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if declType := common.SchemaDeclType(&openapi.Schema{Schema: s}, true); declType != nil {
		out.Kinds[gvk.String()] = enc.encode(declType, common.WithTypeAndObjectMeta(s))
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
