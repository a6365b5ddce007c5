package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	quietLogs(false)
	if err := enableUpstreamDefaults(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// ask runs requests through serve, as the process does, and returns the answers by id.
func ask(t *testing.T, requests ...map[string]any) map[string]map[string]any {
	t.Helper()
	var in bytes.Buffer
	for _, r := range requests {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	o := newOracle()
	defer o.close()
	var out bytes.Buffer
	if err := serve(o, &in, &out); err != nil {
		t.Fatal(err)
	}
	answers := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a map[string]any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		if e, ok := a["oracleError"]; ok {
			t.Logf("oracleError for %v: %v", a["id"], e)
		}
		answers[string(mustJSON(t, a["id"]))] = a
	}
	if len(answers) != len(requests) {
		t.Fatalf("got %d answers for %d requests:\n%s", len(answers), len(requests), out.String())
	}
	return answers
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// manifestDir writes files into a fresh directory.
func manifestDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func review(t *testing.T, request map[string]any) map[string]any {
	t.Helper()
	base := map[string]any{
		"uid":       "u1",
		"userInfo":  map[string]any{"username": "alice", "groups": []any{"system:authenticated"}},
		"operation": "CREATE",
	}
	for k, v := range request {
		base[k] = v
	}
	if _, ok := base["requestKind"]; !ok {
		base["requestKind"] = base["kind"]
		base["requestResource"] = base["resource"]
	}
	return map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": base}
}

func configMapReview(t *testing.T, namespace string, labels map[string]any) map[string]any {
	return review(t, map[string]any{
		"kind":      map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"},
		"resource":  map[string]any{"group": "", "version": "v1", "resource": "configmaps"},
		"name":      "cm1",
		"namespace": namespace,
		"object": map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm1", "namespace": namespace, "labels": labels},
			"data":     map[string]any{"k": "v"}},
		"options": map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
	})
}

func namespaceObject(name string, labels map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "labels": labels}}
}

func at(t *testing.T, obj any, path ...string) any {
	t.Helper()
	cur := obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%v: %q is not in %v", path, p, cur)
		}
		cur = m[p]
	}
	return cur
}
