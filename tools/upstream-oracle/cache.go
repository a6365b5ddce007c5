package main

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pluginCache keeps one plugin per (plugin, directory), rebuilt when the directory's content hash changes, so a
// suite can send thousands of requests against one manifest set without rebuilding it each time. Requests for one
// key never overlap (serve orders them); different keys build and run in parallel, since building is mostly waiting
// on informer sync polls.
type pluginCache struct {
	mu      sync.Mutex
	entries map[string]*policyPlugin
	order   []string // least recently used first
}

// Each plugin holds informers, goroutines and (for MAP) parsed schemas; this bounds the idle ones kept.
const maxCachedPlugins = 48

func newPluginCache() *pluginCache { return &pluginCache{entries: map[string]*policyPlugin{}} }

// get returns the plugin for dir, held until release; custom, when set, is a custom kind the plugin's OpenAPI
// documents must describe (the apiserver would have its CRD's schema).
func (c *pluginCache) get(name, dir string, custom *schema.GroupVersionKind) (*policyPlugin, error) {
	res, err := loadManifests(name, dir)
	if err != nil {
		// kube-apiserver refuses to start with this directory: building the plugin gives its own startup error.
		p, buildErr := newPolicyPlugin(name, dir, "", nil)
		if buildErr == nil {
			p.close()
			return nil, fmt.Errorf("the loader refused %q but the plugin accepted it: %w", dir, err)
		}
		return nil, buildErr
	}
	key := name + "\x00" + dir
	customKinds := map[schema.GroupVersion][]string{}
	c.mu.Lock()
	if existing, ok := c.entries[key]; ok {
		if existing.hash == res.hash && describes(existing.custom, custom) {
			existing.users++
			c.touch(key)
			c.mu.Unlock()
			return existing, nil
		}
		if existing.hash == res.hash {
			for gv, kinds := range existing.custom {
				customKinds[gv] = slices.Clone(kinds)
			}
		}
		c.drop(key)
	}
	c.mu.Unlock()
	if custom != nil && !describes(customKinds, custom) {
		customKinds[custom.GroupVersion()] = append(customKinds[custom.GroupVersion()], custom.Kind)
	}
	p, err := newPolicyPlugin(name, dir, res.hash, customKinds)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, raced := c.entries[key]; raced {
		c.drop(key)
	}
	p.users = 1
	c.entries[key] = p
	c.order = append(c.order, key)
	c.evictIdle()
	return p, nil
}

// release hands back a plugin from get.
func (c *pluginCache) release(p *policyPlugin) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.users--
	if p.users == 0 && p.dropped {
		p.close()
	}
	c.evictIdle()
}

func (c *pluginCache) touch(key string) {
	c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
	c.order = append(c.order, key)
}

// drop forgets key's plugin; it is stopped now, or when its last user releases it.
func (c *pluginCache) drop(key string) {
	p := c.entries[key]
	delete(c.entries, key)
	c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
	p.dropped = true
	if p.users == 0 {
		p.close()
	}
}

func (c *pluginCache) evictIdle() {
	for i := 0; len(c.order) > maxCachedPlugins && i < len(c.order); {
		key := c.order[i]
		if c.entries[key].users > 0 {
			i++
			continue
		}
		c.drop(key)
	}
}

func describes(custom map[schema.GroupVersion][]string, gvk *schema.GroupVersionKind) bool {
	return gvk == nil || slices.Contains(custom[gvk.GroupVersion()], gvk.Kind)
}

func (c *pluginCache) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.entries {
		c.drop(key)
	}
}
