package router3

import (
	"sync"

	"havlak-lab/go/router/route"
)

// cacheSize bounds the cache: paths with parameters are countless, so a
// full cache is emptied and fills again with the paths in use.
const cacheSize = 4096

// maxCachedKey bounds each entry: a longer method and path (a hostile
// client's, most likely) is looked up in the trie every time, so that the
// cache's memory is bounded by its entries times this, not by what
// clients send. Parameter values are parts of the path.
const maxCachedKey = 1024

type key struct{ method, path string }

type entry struct {
	res    route.Result
	params route.Params
}

// cache is every lookup's answer, behind one mutex.
type cache struct {
	mu      sync.Mutex
	entries map[key]entry
}

func newCache() cache { return cache{entries: make(map[key]entry, cacheSize)} }

// get copies k's cached answer into p.
func (c *cache) get(k key, p *route.Params) (route.Result, bool) {
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok {
		return route.Result{}, false
	}
	*p = e.params
	return e.res, true
}

// put caches k's answer.
func (c *cache) put(k key, res route.Result, p *route.Params) {
	if len(k.method)+len(k.path) > maxCachedKey {
		return
	}
	c.mu.Lock()
	if len(c.entries) >= cacheSize {
		clear(c.entries)
	}
	c.entries[k] = entry{res, *p}
	c.mu.Unlock()
}

// reset empties the cache.
func (c *cache) reset() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
